/**
 * How long one hook may take before it answers without a decision. The agents kill a hook that
 * runs past its timeout (30 s as `hermes hook install` writes it) and then run the call, so the
 * hook must answer — and deny — first, whatever the extensions' own limits add up to (imports
 * and setups 10 s each, every handler 5 s by default). `HERMES_HOOK_DEADLINE_MS` sets it, never
 * above this: the variable is the environment the agent gives its hook, which a project can set
 * (Claude Code passes a project's settings `env` to its hooks), and a deadline past the agent's
 * timeout would have the agent kill the hook and run the call.
 * Imports nothing: the hook client (src/host/daemon/client.ts) reads it before the framework.
 */
export const HOOK_DEADLINE_MS = 25_000;

/**
 * When the chains of one hook call must have decided (`TurnOptions.deadline`), for a call that
 * started at `startedAt` (`Date.now()`) with `deadlineMs` to answer: a fifth of it, at most a
 * second, is kept back to record and write the answer, so a chain past its time is refused with
 * its own reason (who ran, who did not) rather than the hook's bare late answer.
 */
export function chainsDeadline(startedAt: number, deadlineMs: number): number {
  return startedAt + deadlineMs - Math.min(1000, deadlineMs / 5);
}

export function hookDeadlineMs(): number {
  const set = Number(process.env.HERMES_HOOK_DEADLINE_MS);
  return Number.isFinite(set) && set > 0 ? Math.min(set, HOOK_DEADLINE_MS) : HOOK_DEADLINE_MS;
}
