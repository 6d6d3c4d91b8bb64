import { hermesCommand } from '../../command-name.js';
import type { CommandHookAgent } from '../../host/command-hook/agents.js';
import { settingsFormat } from '../../host/command-hook/settings/formats.js';
import {
  installHermesPlugin,
  uninstallHermesPlugin,
} from '../../host/hermes-agent/plugin-install.js';
import { hermesPluginStatus } from '../../host/hermes-agent/plugin-status.js';
import { CliError, type Io } from '../io.js';

/**
 * `hermes hook install hermes-agent --plugin`: the Hermes agent's Python plugin instead of its
 * shell hooks (docs/hermes-agent.md). One or the other: with both, Hermes would run every chain
 * twice, in two turns that do not share state (a budget would count each call twice, a plan
 * noted in one would be missing in the other), so installing one form takes the other out and
 * says so.
 */
export function installHermesPluginCommand(agent: CommandHookAgent, io: Io): number {
  const file = shellHookFile(agent);
  const installed = attempt(() => installHermesPlugin());
  io.out(
    `Installed the Hermes agent plugin in ${installed.pluginDir}${installed.enabled || installed.undisabled ? ` and enabled it in ${installed.configFile}` : ''}.`,
  );
  const { removed } = attempt(() => settingsFormat(agent).uninstall(agent, file));
  if (removed.length > 0) {
    io.out(
      `Removed the hermes shell hooks for ${removed.join(', ')} from ${file}: with the plugin they would check every call twice.`,
    );
  }
  io.out('Hermes loads it when a session starts.');
  return 0;
}

/** `hermes hook uninstall hermes-agent --plugin`. */
export function uninstallHermesPluginCommand(io: Io): number {
  const removed = attempt(() => uninstallHermesPlugin());
  io.out(
    removed.removed || removed.disabled
      ? `Removed the Hermes agent plugin from ${removed.pluginDir}.`
      : `${removed.pluginDir} holds no plugin of hermes-extensions; nothing changed.`,
  );
  return 0;
}

/**
 * Before the shell hooks go in: a plugin of this package that Hermes runs comes out, for the
 * reason above.
 */
export function replaceHermesPlugin(io: Io): void {
  const status = hermesPluginStatus();
  if (!status.installed) return;
  attempt(() => uninstallHermesPlugin());
  io.out(
    `Removed the Hermes agent plugin from ${status.pluginDir}: with the shell hooks it would check every call twice (${hermesCommand()} hook install hermes-agent --plugin puts it back instead of them).`,
  );
}

function shellHookFile(agent: CommandHookAgent): string {
  const file = agent.settingsFile(undefined);
  if (file === undefined) throw new CliError(`${agent.title} declares no settings file`, 1);
  return file;
}

function attempt<T>(action: () => T): T {
  try {
    return action();
  } catch (error) {
    throw new CliError((error as Error).message, 1);
  }
}
