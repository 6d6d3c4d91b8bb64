import { COMMAND_HOOK_AGENTS } from '../../../host/command-hook/agents.js';
import { inspectInstalledHooks } from '../../../host/command-hook/installed.js';
import type { Runtime } from '../../../runtime/runtime.js';
import type { Check } from './check.js';

/**
 * transform_final_answer under the agents whose hooks are installed (docs/hosts.md, The final
 * answer by host): Claude Code and Codex only keep the agent going at its `Stop` (the answer is
 * shown already, a rewrite is not applied); the other agents' gates do not run at all. A gate
 * the user believes in but that never runs is worse than none, so each installed agent is named.
 */
export function finalAnswerChecks(projectRoot: string, runtime: Runtime): Check[] {
  const gates = runtime.extensions
    .filter(
      (ext) =>
        ext.status === 'enabled' && ext.hooks.some((h) => h.hook === 'transform_final_answer'),
    )
    .map((ext) => ext.name);
  if (gates.length === 0) return [];
  const who = `${gates.join(', ')} handle${gates.length === 1 ? 's' : ''} transform_final_answer`;
  return Object.values(COMMAND_HOOK_AGENTS).flatMap((agent) =>
    inspectInstalledHooks(agent, projectRoot).map(
      (hook): Check => ({
        level: 'warning',
        subject: `${agent.title} hook (${hook.file})`,
        message:
          agent.continueAtStop === undefined
            ? `${who}, which does not run under ${agent.title} hooks: no hook event holds the answer or keeps the agent going at its end`
            : `${who}, which runs at ${agent.title}'s Stop after the answer is shown: a block keeps the agent going with the reason; a rewrite is not applied (the user is told)`,
      }),
    ),
  );
}
