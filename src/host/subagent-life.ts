import type { AgentIdentity } from '../hooks/agent-identity.js';
import type { SubagentStatus } from '../observe/subagent-events.js';
import type { TurnTelemetry } from '../observe/turn-telemetry.js';

/** How a finished run of a subagent ended, as `subagent_stop` tells it. */
export interface SubagentEnd {
  cancelled: boolean;
  /** Its final answer, when there is one. */
  summary?: string | undefined;
}

/**
 * Runs a subagent of the in-process hosts (`runConversation`'s and the AI SDK adapter's
 * `subagentTool`) between `subagent_start` and `subagent_stop`, told by the parent's telemetry:
 * the stop says how it ended (`ended` reads a finished run; a run that throws is `failed`, or
 * `cancelled` once `signal` is aborted), its summary and how long it took.
 */
export async function observedSubagentRun<T>(
  parent: TurnTelemetry,
  agent: AgentIdentity,
  goal: string | undefined,
  signal: AbortSignal | undefined,
  run: () => Promise<T>,
  ended: (value: T) => SubagentEnd,
): Promise<T> {
  const described = {
    id: agent.id,
    ...(agent.type === undefined ? {} : { role: agent.type }),
    ...(agent.parent === undefined ? {} : { parent: agent.parent }),
  };
  parent.subagentStarted({ ...described, ...(goal === undefined ? {} : { goal }) });
  const started = performance.now();
  let status: SubagentStatus = 'failed';
  let summary: string | undefined;
  try {
    const value = await run();
    const end = ended(value);
    status = end.cancelled ? 'cancelled' : 'completed';
    summary = end.summary;
    return value;
  } catch (error) {
    if (signal?.aborted) status = 'cancelled';
    throw error;
  } finally {
    parent.subagentStopped({
      ...described,
      status,
      ...(summary === undefined ? {} : { summary }),
      durationMs: performance.now() - started,
    });
  }
}
