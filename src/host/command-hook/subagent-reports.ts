import type { CommandHookAgent } from './agents.js';
import { type HookAnswer, NO_DECISION, render } from './answers.js';
import { type ReportOptions, reportSubagent } from './observed.js';
import { reported } from './reported.js';
import { recordSubagentStart, subagentStopped } from './subagent-lifecycle.js';
import { turnEnded } from './turn-end.js';

type HookEvent = Record<string, unknown>;

/**
 * `SubagentStart`, `SubagentStop` (or a subagent's own `Stop`): the turn's record of its running
 * subagents (subagent-lifecycle.ts), then `subagent_start` / `subagent_stop` for observers, told
 * as the turn's events. A subagent's stop that was the turn's last wait ends the turn. Never a
 * decision: the answer is nothing (a report that failed says so on stderr), so the agent goes on.
 */
export async function subagentEvent(
  agent: CommandHookAgent,
  event: HookEvent,
  name: string,
  sessionId: string,
  reporting: ReportOptions,
): Promise<HookAnswer> {
  const { store } = reporting;
  const now = Date.now();
  if (name === 'SubagentStart') {
    await recordSubagentStart(store, sessionId, event, now);
    const turn = store.peek(sessionId);
    if (turn === undefined || typeof event.agent_id !== 'string')
      return render(agent, name, NO_DECISION);
    if (turn.reports?.includes('subagent_start') === false) return render(agent, name, NO_DECISION);
    const id = event.agent_id;
    const role = typeof event.agent_type === 'string' ? event.agent_type : undefined;
    return reported(
      agent,
      name,
      reportSubagent(agent, event, sessionId, turn.turnId, reporting, (telemetry) =>
        telemetry.subagentStarted({ id, ...(role === undefined ? {} : { role }) }),
      ),
    );
  }
  const { stopped, ended, turnId } = await subagentStopped(store, sessionId, event, now);
  const told =
    stopped === undefined ||
    turnId === undefined ||
    (ended ?? store.peek(sessionId))?.reports?.includes('subagent_stop') === false
      ? Promise.resolve()
      : reportSubagent(agent, event, sessionId, turnId, reporting, (telemetry) =>
          telemetry.subagentStopped(stopped),
        );
  const answer = await reported(agent, name, told);
  if (ended === undefined) return answer;
  // The last subagent of a turn whose main agent had stopped: now the turn ends.
  // Told as the turn's end, not the subagent's: without its ids.
  const { agent_id: _id, agent_type: _type, ...turnEvent } = event;
  return turnEnded(agent, { ...turnEvent, hook_event_name: 'Stop' }, sessionId, ended, reporting);
}
