import { existsSync } from 'node:fs';
import { hermesCommand } from '../../../command-name.js';
import { hermesPluginStatus } from '../../../host/hermes-agent/plugin-status.js';
import type { Check } from './check.js';

/**
 * The Hermes agent's Python plugin, when a plugin folder of that name is there: whether Hermes
 * runs this install's plugin (installed, current, enabled), else what to do. No folder, no check:
 * the shell hooks are checked with the other agents' hooks (agent-hooks.ts).
 */
export function hermesPluginChecks(): Check[] {
  const status = hermesPluginStatus();
  if (!existsSync(status.pluginDir)) return [];
  const subject = `Hermes agent plugin (${status.pluginDir})`;
  if (status.problems.length === 0) {
    const by =
      status.installedBy === undefined
        ? ''
        : ` (installed by the hermes-extensions of this version at ${status.installedBy}, which it runs)`;
    return [
      { level: 'ok', subject, message: `installed, current and enabled: Hermes runs it${by}` },
    ];
  }
  return [
    {
      level: 'error',
      subject,
      message: status.problems.join('; '),
      fix: `${hermesCommand()} hook install hermes-agent --plugin`,
    },
  ];
}
