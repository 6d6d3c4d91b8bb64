import type { StoppedSubagent } from '../../observe/subagent-events.js';
import type { RunningSubagent, StoredTurn, TurnStore } from './turn-store.js';

type HookEvent = Record<string, unknown>;

/** How many early-stopped subagent ids a turn remembers. */
const STOPPED_KEPT = 64;

/**
 * A subagent's life in the turn that started it, from the agents' hook events:
 *
 * - `SubagentStart` (its `agent_id`) records it as running in the turn.
 * - The main agent's `Stop` while a subagent still runs does not end the turn: Claude Code runs
 *   subagents in the background, so the main agent may stop while its subagent goes on calling
 *   tools, and those calls belong to the turn that started it (its state, its plan, its counts).
 *   The turn waits for the last of them. Subagents come from the turn's record and from the
 *   `background_tasks` the `Stop` lists as running (an install without `SubagentStart` still
 *   keeps the turn for them).
 * - `SubagentStop` — or a `Stop` that carries an `agent_id`, which is a subagent's, never the
 *   main agent's — removes it; when the main agent has stopped and none is left, the turn ends.
 *
 * A turn whose subagents never report their stop ends with the next prompt (a new turn) or by age
 * (turn-sweep.ts), as any other turn that never got its `Stop`.
 */

/**
 * A `SubagentStop`, or an end event (`Stop`, `SessionEnd`) carrying an `agent_id`: a subagent's
 * own end, which never ends the main agent's turn.
 */
export const isSubagentStop = (name: string, event: HookEvent): boolean =>
  name === 'SubagentStop' ||
  ((name === 'Stop' || name === 'SessionEnd') && typeof event.agent_id === 'string');

/** `SubagentStart`: the subagent runs in the stored turn (one is started if there is none). */
export async function recordSubagentStart(
  store: TurnStore,
  sessionId: string,
  event: HookEvent,
  now: number,
): Promise<void> {
  const started = subagentOf(event, now);
  if (started === undefined) return;
  await store.update(sessionId, {}, async (turn) => {
    // It already stopped (its SubagentStop's process came first): it is not running.
    if (turn.stoppedSubagents?.includes(started.id)) {
      return { result: undefined, unchanged: true as const };
    }
    const others = (turn.subagents ?? []).filter((s) => s.id !== started.id);
    return { result: undefined, state: turn.state, subagents: [...others, started] };
  });
}

/**
 * The main agent's `Stop`: whether the turn goes on for its running subagents (then it is kept,
 * marked as stopped by the main agent), or ends (then it is removed and returned).
 */
export async function mainAgentStopped(
  store: TurnStore,
  sessionId: string,
  event: HookEvent,
): Promise<{ waits: true } | { waits: false; ended: StoredTurn | undefined }> {
  const background = runningInBackground(event);
  const settled = await store.settle(sessionId, (turn) => {
    if (turn === undefined) return 'end';
    const known = turn.subagents ?? [];
    const stopped = turn.stoppedSubagents ?? [];
    const fresh = background.filter(
      (b) => !known.some((k) => k.id === b.id) && !stopped.includes(b.id),
    );
    const running = [...known, ...fresh];
    return running.length === 0 ? 'end' : { ...turn, subagents: running, mainStopped: true };
  });
  return settled.kept === undefined ? { waits: false, ended: settled.ended } : { waits: true };
}

/**
 * A subagent stopped: what observers hear of it (none when the event names no subagent), and the
 * turn, when that was the last subagent of a turn whose main agent had stopped.
 */
export async function subagentStopped(
  store: TurnStore,
  sessionId: string,
  event: HookEvent,
  now: number,
): Promise<{ stopped?: StoppedSubagent; ended?: StoredTurn; turnId?: string }> {
  const id = typeof event.agent_id === 'string' ? event.agent_id : undefined;
  if (id === undefined) return {};
  let found: RunningSubagent | undefined;
  const settled = await store.settle(sessionId, (turn) => {
    if (turn === undefined) return 'leave';
    found = turn.subagents?.find((s) => s.id === id);
    // Stopped before its start was recorded: remembered, so the late start is not taken for a
    // subagent that still runs (bounded: the last STOPPED_KEPT).
    if (found === undefined) {
      const stopped = [...(turn.stoppedSubagents ?? []), id].slice(-STOPPED_KEPT);
      return { ...turn, stoppedSubagents: stopped };
    }
    const running = (turn.subagents ?? []).filter((s) => s !== found);
    if (turn.mainStopped && running.length === 0) return 'end';
    return { ...turn, subagents: running };
  });
  const type = typeof event.agent_type === 'string' ? event.agent_type : found?.type;
  const summary = event.last_assistant_message;
  const stopped: StoppedSubagent = {
    id,
    ...(type === undefined ? {} : { role: type }),
    // Neither agent tells a failed subagent from one that answered: its stop is its answer.
    status: 'completed',
    ...(typeof summary === 'string' ? { summary } : {}),
    ...(found?.startedAt === undefined ? {} : { durationMs: now - found.startedAt }),
  };
  const turn = settled.ended ?? settled.kept;
  return {
    stopped,
    ...(settled.ended === undefined ? {} : { ended: settled.ended }),
    ...(turn === undefined ? {} : { turnId: turn.turnId }),
  };
}

/** The subagent a `SubagentStart` names, as the turn records it. */
function subagentOf(event: HookEvent, now: number): RunningSubagent | undefined {
  if (typeof event.agent_id !== 'string' || event.agent_id === '') return undefined;
  return {
    id: event.agent_id,
    ...(typeof event.agent_type === 'string' ? { type: event.agent_type } : {}),
    startedAt: now,
  };
}

/** The subagents a `Stop` lists as still running (Claude Code's `background_tasks`). */
function runningInBackground(event: HookEvent): RunningSubagent[] {
  const tasks = event.background_tasks;
  if (!Array.isArray(tasks)) return [];
  return tasks.flatMap((task: unknown) => {
    if (task === null || typeof task !== 'object') return [];
    const { id, type, status, agent_type: agentType } = task as HookEvent;
    if (typeof id !== 'string' || type !== 'subagent' || status !== 'running') return [];
    return [{ id, ...(typeof agentType === 'string' ? { type: agentType } : {}) }];
  });
}
