import type { CommandHookAgent } from './agents.js';
import { type HookAnswer, NO_DECISION, render } from './answers.js';
import { type ReportOptions, reportTurnEnd } from './observed.js';
import { reported } from './reported.js';
import { tellUnchecked } from './turn-coverage.js';
import type { StoredTurn } from './turn-store.js';

type HookEvent = Record<string, unknown>;

/**
 * A turn that ended (its state already removed; `ended` is what it was, if there was one): the
 * user hears once of calls the hook never decided, observers get `on_session_end`, and at
 * Claude Code's `SessionEnd` the record of what the session was told goes too (told first).
 */
export async function turnEnded(
  agent: CommandHookAgent,
  event: HookEvent,
  sessionId: string,
  ended: StoredTurn | undefined,
  reporting: ReportOptions,
  /** What the user is told with this answer besides (final-answer-gate.ts). */
  notices: readonly string[] = [],
): Promise<HookAnswer> {
  const { store } = reporting;
  const name = String(event.hook_event_name);
  const told = [...notices, ...(await tellUnchecked(store, agent, sessionId, ended))];
  if (event.hook_event_name === 'SessionEnd') await store.end(sessionId, { session: true });
  // A turn that already ended (Stop, then SessionEnd) is not reported twice.
  if (ended === undefined || ended.reports?.includes('on_session_end') === false) {
    return render(agent, name, NO_DECISION, told);
  }
  return reported(
    agent,
    name,
    reportTurnEnd(agent, event, sessionId, ended.turnId, reporting),
    told,
  );
}
