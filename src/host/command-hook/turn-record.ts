/**
 * What a session's turn file holds (turn-store.ts keeps it under `$HERMES_HOME/turns/`), and the
 * check a file read back must pass: anything else is a corrupt file, never taken for a turn.
 */

/** One turn's state between the separate hook processes of that turn. */
export interface StoredTurn {
  turnId: string;
  state: Record<string, unknown>;
  /**
   * Of what later processes of the turn would do — report `post_tool_call` or `on_session_end`,
   * run `before_llm_call` after tool results — what the runtime that last decided for this turn
   * has observers or handlers for. A process that has nothing else to do reads this instead of
   * loading every extension to find out that nobody listens. Absent: unknown (load and see).
   */
  reports?: string[];
  /**
   * The `before_llm_call` iteration last run for this turn (0 at the prompt, then one more at each
   * point after tool results), so the next one is numbered as the in-process host numbers it.
   */
  iteration?: number;
  /** The prompt as the model reads it (after transform_user_input), for later before_llm_call. */
  prompt?: string;
  /**
   * The tool calls decided in this turn, by the agent's call id, oldest first and bounded
   * (decisions.ts): a `PreToolUse` that comes again is answered from here, not decided again.
   */
  decisions?: DecidedCall[];
  /**
   * Calls of this turn whose outcome the agent reported but that had no decision here: the hook
   * did not run for them (turn-coverage.ts). Bounded too.
   */
  unchecked?: UncheckedCall[];
  /**
   * Subagents started in this turn that have not stopped (subagent-lifecycle.ts). A subagent's
   * calls belong to the turn that started it, so while one runs the turn outlives the main
   * agent's `Stop` (Claude Code runs subagents in the background: the main agent may stop first).
   */
  subagents?: RunningSubagent[];
  /**
   * Ids of the turn's subagents that stopped before their `SubagentStart` was recorded (the
   * agent runs the two hooks as separate processes, and a short subagent can end before the
   * first of them takes the turn's lock): a late start of one of them is not a running subagent.
   */
  stoppedSubagents?: string[];
  /** The main agent's `Stop` came while subagents still ran: the last one to stop ends the turn. */
  mainStopped?: boolean;
  /**
   * Why the turn's request was refused, on an agent that cannot refuse a prompt (`blocksPrompt`
   * false): the model was told, and every tool call of the turn is refused with this.
   */
  refused?: string;
  /**
   * How many times in a row transform_final_answer kept the main agent going at its `Stop`
   * (final-answer-gate.ts): bounded, since Codex would go on for ever.
   */
  answerBlocks?: number;
}

/** A subagent of the turn that is still running. */
export interface RunningSubagent {
  id: string;
  type?: string;
  /** When its `SubagentStart` came (ms since the epoch); absent when only `Stop` told of it. */
  startedAt?: number;
}

/** One decided tool call. */
export interface DecidedCall {
  /** The agent's `tool_use_id`. */
  id: string;
  /** A digest of the call as the agent sent it: the same id with another call is not this call. */
  call: string;
  /** The answer as decided, to give again; absent when it was too large to keep. */
  answer?: { refuses: boolean; output?: Record<string, unknown> };
}

/** A reported tool call that was never decided: its id and the agent's name for its tool. */
export interface UncheckedCall {
  id: string;
  tool: string;
}

/** Absent, or an array whose every item passes `check`. */
function listOf(value: unknown, check: (item: unknown) => boolean): boolean {
  return value === undefined || (Array.isArray(value) && value.every(check));
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function isDecidedCall(value: unknown): boolean {
  if (!isRecord(value) || typeof value.id !== 'string' || typeof value.call !== 'string')
    return false;
  const answer = value.answer;
  return (
    answer === undefined ||
    (isRecord(answer) &&
      typeof answer.refuses === 'boolean' &&
      (answer.output === undefined || isRecord(answer.output)))
  );
}

function isUncheckedCall(value: unknown): boolean {
  return isRecord(value) && typeof value.id === 'string' && typeof value.tool === 'string';
}

function isRunningSubagent(value: unknown): boolean {
  return (
    isRecord(value) &&
    typeof value.id === 'string' &&
    (value.type === undefined || typeof value.type === 'string') &&
    (value.startedAt === undefined || Number.isFinite(value.startedAt))
  );
}

/** Whether `value`, read back from a turn file, is a turn as the store writes one. */
export function isStoredTurn(value: unknown): value is StoredTurn {
  const stored = value as StoredTurn | undefined;
  return !(
    typeof stored?.turnId !== 'string' ||
    stored.state === null ||
    typeof stored.state !== 'object' ||
    Array.isArray(stored.state) ||
    (stored.reports !== undefined &&
      !(Array.isArray(stored.reports) && stored.reports.every((e) => typeof e === 'string'))) ||
    (stored.iteration !== undefined && !Number.isSafeInteger(stored.iteration)) ||
    (stored.prompt !== undefined && typeof stored.prompt !== 'string') ||
    !listOf(stored.decisions, isDecidedCall) ||
    !listOf(stored.unchecked, isUncheckedCall) ||
    !listOf(stored.subagents, isRunningSubagent) ||
    !listOf(stored.stoppedSubagents, (id) => typeof id === 'string') ||
    (stored.mainStopped !== undefined && typeof stored.mainStopped !== 'boolean') ||
    (stored.refused !== undefined && typeof stored.refused !== 'string') ||
    (stored.answerBlocks !== undefined && !Number.isSafeInteger(stored.answerBlocks))
  );
}
