import type { ApprovalAsk, TraceEntry } from '../chain/outcome.js';
import { sanitize } from './sanitize.js';

/**
 * What became of an ask, as `post_approval_response` says it. `once`: approved, for this call
 * only; `session`: approved, and remembered for the session; `always`: approved, and remembered
 * for the project (a call a remembered approval covers is answered `session` or `always` with
 * `answeredVia: 'remembered'`, without asking); `deny`: the person said no; `timeout`: nobody answered in time (an approver that gave up and
 * threw a `TimeoutError`); `unanswered`: nobody could answer (no approver, or it failed).
 */
export type ApprovalChoice = 'once' | 'session' | 'always' | 'deny' | 'timeout' | 'unanswered';

/**
 * A tool call an `intercept_tool_call` chain asked a person about, as `pre_approval_request` tells
 * it. Read only when someone observes the event.
 */
export interface AskedCall {
  toolName: string;
  toolCallId: string;
  /** The arguments the call would run with, after every rewrite. */
  toolArgs: Record<string, unknown>;
  /** The first ask: its message is the request's `description`. */
  ask: ApprovalAsk;
  /** The chain's trace: every extension that asked, in chain order. */
  trace: readonly TraceEntry[];
  /**
   * Where the person is asked: `approver` (the host's in-process approve function),
   * `tool_approval` (the AI SDK's tool approval: the caller asks), `agent` (the agent's own
   * permission prompt, from a command hook), `elicitation` (the MCP client's, for `hermes mcp
   * proxy`).
   */
  surface: string;
  /** Which of the framework's hosts asked: `run_conversation`, `ai_sdk`, `command_hook`, `mcp_proxy`. */
  host: string;
}

/** An ask waiting for its answer: what `post_approval_response` repeats, and when it started. */
export interface PendingApproval {
  readonly toolName: string;
  readonly toolCallId: string;
  readonly patternKey: string;
  readonly surface: string;
  readonly host: string;
  /** The turn that asked: an answer through the AI SDK's tool approval may come in a later one. */
  readonly turnId: string;
  readonly startedAt: number;
}

/** An answer, as the host learned it. */
export interface ApprovalAnswer {
  choice: ApprovalChoice;
  /**
   * How the answer came: `approver` (the host's approve function), `tool_approval_response` (an
   * AI SDK message), `remembered` (an earlier `session` or `always` answer covered the call), `none` (nobody was there to answer). No host tells who the person was.
   */
  answeredVia: string;
  /** Why nobody answered, for `timeout` and `unanswered`. */
  failure?: string;
  /** The person's own words, when the host passes them on (the AI SDK's denial reason). */
  reason?: string;
}

/** `pre_approval_request`'s own fields. */
export function requestFields(asked: AskedCall): Record<string, unknown> {
  const command = asked.toolArgs.command;
  return {
    tool_name: asked.toolName,
    tool_call_id: asked.toolCallId,
    args: sanitize(asked.toolArgs),
    ...(typeof command === 'string' ? { command: sanitize(command) } : {}),
    description: sanitize(asked.ask.message),
    pattern_key: asked.ask.askedBy,
    pattern_keys: askersOf(asked),
    asked_by: asked.ask.askedBy,
    surface: asked.surface,
    host: asked.host,
  };
}

/** What the answer event will need, kept from the request (no payload, no copy of the arguments). */
export function pendingOf(asked: AskedCall, turnId: string, startedAt: number): PendingApproval {
  return {
    toolName: asked.toolName,
    toolCallId: asked.toolCallId,
    patternKey: asked.ask.askedBy,
    surface: asked.surface,
    host: asked.host,
    turnId,
    startedAt,
  };
}

/** `post_approval_response`'s own fields. */
export function responseFields(
  pending: PendingApproval,
  answer: ApprovalAnswer,
  endedAt: number,
): Record<string, unknown> {
  return {
    tool_name: pending.toolName,
    tool_call_id: pending.toolCallId,
    pattern_key: pending.patternKey,
    surface: pending.surface,
    host: pending.host,
    requested_turn_id: pending.turnId,
    choice: answer.choice,
    granted: answer.choice === 'once' || answer.choice === 'session' || answer.choice === 'always',
    timed_out: answer.choice === 'timeout',
    answered_via: answer.answeredVia,
    duration_ms: endedAt - pending.startedAt,
    ...(answer.failure === undefined ? {} : { failure: sanitize(answer.failure) }),
    ...(answer.reason === undefined ? {} : { reason: sanitize(answer.reason) }),
  };
}

/** Every extension that asked, once each, in chain order; the first ask's always first. */
function askersOf(asked: AskedCall): string[] {
  const askers = new Set([asked.ask.askedBy]);
  for (const entry of asked.trace) if (entry.action === 'ask') askers.add(entry.extension);
  return [...askers];
}
