/**
 * How long one hook may take before it answers without a decision. The agents kill a hook that
 * runs past its timeout (30 s as `hermes hook install` writes it) and then run the call, so the
 * hook must answer — and deny — first, whatever the extensions' own limits add up to (imports
 * and setups 10 s each, every handler 5 s by default). `HERMES_HOOK_DEADLINE_MS` sets it.
 * Imports nothing: the hook client (src/host/daemon/client.ts) reads it before the framework.
 */
export const HOOK_DEADLINE_MS = 25_000;

export function hookDeadlineMs(): number {
  const set = Number(process.env.HERMES_HOOK_DEADLINE_MS);
  return Number.isFinite(set) && set > 0 ? set : HOOK_DEADLINE_MS;
}
