import type { Logger } from '../../log/logger.js';
import type { ObserverEvent } from '../../observe/events.js';
import { type ToolStatus, TurnTelemetry } from '../../observe/turn-telemetry.js';
import type { Runtime } from '../../runtime/runtime.js';
import { type Turn, turnTelemetry } from '../../runtime/turn.js';
import { agentIds } from './agent-identity.js';
import type { CommandHookAgent } from './agents.js';
import { refusedHere } from './decisions.js';
import { type RuntimeSource, usingRuntime } from './runtime-source.js';
import type { TurnStore } from './turn-store.js';

type HookEvent = Record<string, unknown>;

/** The observer events reported by processes that decide nothing (PostToolUse, Stop). */
export const REPORTED_LATER = [
  'post_tool_call',
  'on_session_end',
  'subagent_start',
  'subagent_stop',
] as const;

/**
 * What later processes of a turn may do: report those, run before_llm_call after tools, judge
 * the answer at the main agent's `Stop` (final-answer-gate.ts), or run transform_tool_result
 * over a tool's result.
 */
export const LATER_WORK = [
  ...REPORTED_LATER,
  'before_llm_call',
  'transform_final_answer',
  'transform_tool_result',
] as const;

/**
 * The observer events of one hook event, with the fields the in-process host gives them
 * (docs/observing.md): the session, the turn (the stored one, so every process of a turn reports
 * the same id), the turn as task, the agent as platform, and the model when the agent names it
 * (Codex does), and inside a subagent its `agent_id` and `agent_type`. A hook never sees a model request, so no `api_request_id`. The turn reports its
 * own decisions (hook_decision) with the same ids.
 */
export function hookTelemetry(turn: Turn, event: HookEvent): TurnTelemetry {
  return turnTelemetry(turn).identify({
    ...(typeof event.model === 'string' ? { model: event.model } : {}),
    ...agentIds(event),
  });
}

/**
 * The same, for a process that reports without running a turn (PostToolUse, Stop). A subagent's
 * start and stop are told as the turn's, not as the subagent's own (`asTurn`): the event's
 * `agent_id` there is the subagent the event is about.
 */
function reportTelemetry(
  runtime: Runtime,
  agent: CommandHookAgent,
  event: HookEvent,
  sessionId: string,
  turnId: string,
  asTurn = false,
): TurnTelemetry {
  const sink = { has: (e: ObserverEvent) => runtime.hasHook(e), emit: runtime.emit.bind(runtime) };
  return new TurnTelemetry(sink, {
    session_id: sessionId,
    turn_id: turnId,
    task_id: turnId,
    platform: agent.name,
    ...(typeof event.model === 'string' ? { model: event.model } : {}),
    ...(asTurn ? {} : agentIds(event)),
  });
}

/** `subagent_start` or `subagent_stop`, told by the turn that started the subagent. */
export async function reportSubagent(
  agent: CommandHookAgent,
  event: HookEvent,
  sessionId: string,
  turnId: string,
  options: ReportOptions,
  report: (telemetry: TurnTelemetry) => void,
): Promise<void> {
  const cwd = typeof event.cwd === 'string' ? event.cwd : process.cwd();
  await withRuntime(cwd, options, (runtime) =>
    report(reportTelemetry(runtime, agent, event, sessionId, turnId, true)),
  );
}

/** The tool call of a `PreToolUse` or `PostToolUse` event, named as extensions name it. */
export function hookToolCall(agent: CommandHookAgent, event: HookEvent, cwd: string) {
  const input = event.tool_input;
  const args =
    input !== null && typeof input === 'object' && !Array.isArray(input)
      ? (input as Record<string, unknown>)
      : {};
  const { toolName, toolArgs } = agent.toolIn(String(event.tool_name), args, cwd);
  return {
    id: typeof event.tool_use_id === 'string' ? event.tool_use_id : '',
    name: toolName,
    arguments: toolArgs,
  };
}

export interface ReportOptions {
  home: string;
  logger: Logger;
  store: TurnStore;
  runtimes: RuntimeSource;
}

/**
 * `PostToolUse` (and Claude Code's `PostToolUseFailure`, where it is sent): the call's outcome as
 * `post_tool_call`; `tool_status: "blocked"` a call the agent did not run, told only when it was
 * not refused here (then it was told at the refusal). Only a report: the caller answers with nothing whatever happens here, so the
 * agent goes on as if there were no hook.
 */
export async function reportToolOutcome(
  agent: CommandHookAgent,
  event: HookEvent,
  sessionId: string,
  options: ReportOptions,
): Promise<void> {
  if (typeof event.tool_name !== 'string') return;
  const cwd = typeof event.cwd === 'string' ? event.cwd : process.cwd();
  const stored = options.store.peek(sessionId);
  // Told when it was refused: the agent's report that it did not run is the same outcome.
  if (event.tool_status === 'blocked' && refusedHere(stored, event.tool_use_id)) return;
  const turnId = stored?.turnId ?? turnIdOf(event) ?? '';
  await withRuntime(cwd, options, (runtime) =>
    tellToolOutcome(runtime, agent, event, sessionId, turnId),
  );
}

/** The same, with a runtime already loaded (a process that also runs before_llm_call). */
export function tellToolOutcome(
  runtime: Runtime,
  agent: CommandHookAgent,
  event: HookEvent,
  sessionId: string,
  turnId: string,
): void {
  if (typeof event.tool_name !== 'string' || !runtime.hasHook('post_tool_call')) return;
  const cwd = typeof event.cwd === 'string' ? event.cwd : process.cwd();
  const failed = event.hook_event_name === 'PostToolUseFailure';
  const status: ToolStatus = failed
    ? event.is_interrupt
      ? 'cancelled'
      : 'error'
    : event.tool_status === 'blocked'
      ? 'blocked'
      : 'ok';
  const response = failed ? event.error : event.tool_response;
  reportTelemetry(runtime, agent, event, sessionId, turnId).postTool(
    hookToolCall(agent, event, cwd),
    undefined,
    {
      status,
      result: typeof response === 'string' ? response : (JSON.stringify(response) ?? ''),
      ...(typeof event.duration_ms === 'number' ? { durationMs: event.duration_ms } : {}),
      ...(failed ? { error: new Error(String(event.error ?? 'the tool failed')) } : {}),
    },
  );
}

/**
 * The end of a turn (`Stop`; or Claude Code's `SessionEnd` while a turn was still open, which
 * means it was interrupted) as `on_session_end`, paired with the `on_session_start` of its
 * `UserPromptSubmit`, as `runConversation` pairs them.
 */
export async function reportTurnEnd(
  agent: CommandHookAgent,
  event: HookEvent,
  sessionId: string,
  turnId: string,
  options: ReportOptions,
): Promise<void> {
  const cwd = typeof event.cwd === 'string' ? event.cwd : process.cwd();
  const completed = event.hook_event_name === 'Stop';
  await withRuntime(cwd, options, (runtime) =>
    reportTelemetry(runtime, agent, event, sessionId, turnId).sessionEnd(
      completed,
      !completed,
      completed ? 'completed' : 'cancelled',
    ),
  );
}

/** Gets the runtime, reports, lets it go (a loaded one is closed: what observers buffered is written). */
function withRuntime(
  cwd: string,
  options: ReportOptions,
  report: (runtime: Runtime) => void,
): Promise<void> {
  return usingRuntime(
    options.runtimes,
    { cwd, home: options.home, logger: options.logger },
    report,
  );
}

/**
 * The turn an event names (Codex's `turn_id`), when it may name one: a subagent's events
 * (`agent_id`) belong to the turn that started the subagent, whatever id the agent gives them, so
 * they never start a turn of their own (which would leave the main agent's state behind).
 */
export function turnIdOf(event: HookEvent): string | undefined {
  if (typeof event.agent_id === 'string') return undefined;
  return typeof event.turn_id === 'string' ? event.turn_id : undefined;
}

/** See `StoredTurn.reports`. */
export function laterWork(runtime: Runtime): string[] {
  return LATER_WORK.filter((work) => runtime.hasHook(work));
}
