import { fileURLToPath, pathToFileURL } from 'node:url';
import { type Answer, bin, runProcess } from './run-bin.js';

/** The preload that points a process at a managed folder (managed-seam.mjs). */
const seam = pathToFileURL(fileURLToPath(new URL('./managed-seam.mjs', import.meta.url))).href;

/**
 * The bin with `managed` as its managed folder, as an admin's system folder would be, with its own
 * $HERMES_HOME and $HOME; `env` on top. Hooks answer in-process: a daemon it started would not
 * carry the preload.
 */
export function hermesManaged(
  managed: string,
  home: string,
  args: string[],
  options: { env?: Record<string, string | undefined>; stdin?: string } = {},
): Promise<Answer> {
  return runProcess(process.execPath, ['--import', seam, bin, ...args], {
    env: {
      HERMES_TEST_MANAGED_SEAM: managed,
      HERMES_HOME: home,
      HOME: home,
      HERMES_DAEMON: '0',
      HERMES_TRUST_PROJECT: '',
      CLAUDE_PROJECT_DIR: undefined,
      ...options.env,
    },
    ...(options.stdin === undefined ? {} : { stdin: options.stdin }),
  });
}
