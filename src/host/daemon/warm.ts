import type { CommandHookAgent } from '../command-hook/agents.js';
import { engineEventName } from '../command-hook/answers.js';
import { SESSION_START } from './protocol.js';
import type { Judged } from './requests.js';

/**
 * Warm before the first prompt. An agent's `SessionStart` (protocol.ts SESSION_START) decides
 * nothing: the daemon answers it at once, as the hook process would (with nothing), and starts
 * loading the runtime that will answer the session's events (runtime-workers.ts `warm`) without
 * sending it any event. The session's first prompt, or any event, then goes to that runtime and
 * waits for its load instead of starting another one; where no daemon served, the hook that
 * started one handed it the event (client.ts, `hermes daemon run --warm`).
 *
 * The early answer allows nothing: it is the answer the engine gives the event in-process
 * (run-hook.ts), worked out with no runtime, and only an event the agent names SESSION_START is
 * taken for one. A load that fails is kept by no runtime: the next event loads again and reports
 * the failure as it always has (a refusal of a tool call).
 */
export function startsSession(agent: CommandHookAgent, judged: Judged): boolean {
  return judged.event !== undefined && engineEventName(agent, judged.event) === SESSION_START;
}

/**
 * The environment of the session's later hooks: the `SessionStart` hook's, without what the agent
 * sets for that hook alone (agent.ts `sessionStartOnlyEnv`). The runtime is loaded in it, so the
 * prompt's hook finds it while it still loads (a loading runtime serves only the very same
 * environment: worker-handle.ts `serves`).
 */
export function sessionEnv(
  agent: CommandHookAgent,
  env: Record<string, string>,
): Record<string, string> {
  const only = agent.sessionStartOnlyEnv ?? [];
  if (!only.some((name) => Object.hasOwn(env, name))) return env;
  const rest = { ...env };
  for (const name of only) delete rest[name];
  return rest;
}
