import { resolve } from 'node:path';
import { hermesHome } from '../../config/locations.js';
import { userFolders } from '../../policy/protected/agent-folders.js';
import { daemonFolder } from '../../policy/protected/daemon-folder.js';
import { type Pins, UNSET } from './hook-wrapper.js';

/**
 * What the user form of the hook carries (hook-wrapper.ts, PINS), as install takes it from this
 * process's environment, the user's: `$HERMES_HOME` and the daemon's folder, absolute, and the
 * user folders protected ground is placed by, where the user set them.
 */
export function installPins(): Pins {
  return {
    HERMES_HOME: hermesHome(),
    HERMES_DAEMON_DIR: resolve(daemonFolder()),
    ...userFolders(),
  };
}

/**
 * The environment a hook installed from this process runs hermes with, when the agent gives it
 * this process's environment: UNSET taken out, the pins put in (the program's first lines).
 * `hermes daemon status` finds the daemon of the hooks installed from a terminal with it, which
 * the terminal's own environment, with no pins, does not name.
 */
export function installedHookEnv(): NodeJS.ProcessEnv {
  const hook = { ...process.env };
  for (const name of UNSET) delete hook[name];
  for (const [name, value] of Object.entries(installPins()))
    if (value !== undefined) hook[name] = value;
  return hook;
}
