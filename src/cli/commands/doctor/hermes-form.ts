import { hermesAgent } from '../../../host/command-hook/agents/hermes-agent.js';
import { inspectInstalledHooks } from '../../../host/command-hook/installed.js';
import {
  type HermesHookPoint,
  pluginHookPoints,
  shellHookPoints,
} from '../../../host/hermes-agent/hook-points.js';
import { hermesPluginStatus } from '../../../host/hermes-agent/plugin-status.js';
import type { Check } from './check.js';

const SUBJECT = 'Hermes agent';

/**
 * Which form of this package runs in the Hermes agent, and what each hook point becomes there:
 * the shell hooks; the plugin with middleware (Hermes 0.17.0 and later); the plugin with hooks
 * only. The plugin's form is what it recorded when Hermes last loaded it (registration.ts), so no
 * program is run to learn Hermes' version; until Hermes has loaded the installed plugin, doctor
 * says to start it once. Neither installed: no check. A plugin that is not installed right or
 * not enabled is hermes-plugin.ts's to report.
 */
export function hermesFormChecks(): Check[] {
  const plugin = hermesPluginStatus();
  if (plugin.registration !== undefined && plugin.problems.length === 0) {
    if ('missing' in plugin.registration) {
      return [
        {
          level: 'warning',
          subject: SUBJECT,
          message: `${plugin.registration.missing}, so which form runs there, and what each hook point becomes, is not known yet: start Hermes once (any command that loads its plugins, such as \`hermes chat\`), then run doctor again`,
          fix: 'start hermes once',
        },
      ];
    }
    const { registration } = plugin.registration;
    const version =
      registration.hermesVersion === undefined
        ? 'Hermes of an unknown version'
        : `Hermes ${registration.hermesVersion}`;
    const form = registration.form === 'middleware' ? 'with middleware' : 'with hooks only';
    return [
      info(
        `runs the plugin ${form} (${version}, loaded ${registration.recordedAt})`,
        pluginHookPoints(registration),
      ),
    ];
  }
  const shell = inspectInstalledHooks(hermesAgent).filter((hook) => hook.missing.length === 0);
  if (shell.length === 0) return [];
  return [info('runs the shell hooks', shellHookPoints())];
}

function info(form: string, points: HermesHookPoint[]): Check {
  const lines = points.map(({ point, becomes }) => `${point} → ${becomes}`);
  return {
    level: 'info',
    subject: SUBJECT,
    message: [`${form}; each hook point becomes:`, ...lines].join('\n'),
  };
}
