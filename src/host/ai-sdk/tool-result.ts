import type { ChainOutcome } from '../../chain/outcome.js';
import type { AgentIdentity } from '../../hooks/agent-identity.js';
import type { Turn } from '../../runtime/turn.js';
import { blockedToolError } from '../blocked-tool-result.js';

/** The call whose result is being handed back, as `transform_tool_result` names it. */
export interface ResultOf {
  toolName: string;
  toolArgs: Record<string, unknown>;
  toolCallId: string;
  agent: AgentIdentity | undefined;
}

/**
 * What the SDK gets back from a wrapped `execute` that returned `result`: the result after
 * `transform_tool_result`, or the refusal in its place.
 */
export function transformedResult(turn: Turn, call: ResultOf, result: unknown): unknown {
  const outcome = settle(turn, call, result, false);
  // No handler for the tool: the chain answered at once, and nothing waits on a promise.
  return outcome instanceof Promise ? outcome.then(resultOf) : resultOf(outcome);
}

function resultOf(outcome: ChainOutcome<unknown>): unknown {
  return outcome.blocked ? blockedToolError(outcome) : outcome.value;
}

/**
 * What a wrapped `execute` throws for a tool that threw `error` (the SDK makes the thrown
 * message the model's tool error): the error itself when no handler changed its message, a new
 * error with the rewritten message, or — when a handler blocked — the refusal, returned as the
 * result in its place (`{ error, blocked_by_extension, extension }`).
 */
export async function transformedError(
  turn: Turn,
  call: ResultOf,
  error: unknown,
  message: string,
): Promise<{ throws: unknown } | { returns: unknown }> {
  const outcome = await settle(turn, call, message, true);
  if (outcome.blocked) return { returns: blockedToolError(outcome) };
  if (!outcome.changed) return { throws: error };
  const value = outcome.value;
  return { throws: new Error(typeof value === 'string' ? value : JSON.stringify(value)) };
}

function settle(
  turn: Turn,
  call: ResultOf,
  result: unknown,
  isError: boolean,
): ChainOutcome<unknown> | Promise<ChainOutcome<unknown>> {
  return turn.transformToolResult({
    toolName: call.toolName,
    toolArgs: call.toolArgs,
    result,
    isError,
    toolCallId: call.toolCallId,
    ...(call.agent === undefined ? {} : { agent: call.agent }),
  });
}
