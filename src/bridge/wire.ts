import type { ChainOutcome } from '../chain/outcome.js';
import type { ChatMessage } from '../hooks/messages.js';

/**
 * The bridge speaks snake_case, as the Python agent does; the runtime speaks camelCase. These
 * convert at the edge, and only the keys the protocol names: a host's messages keep every other
 * field they carry.
 */
export function outcomeToWire(
  outcome: ChainOutcome<unknown>,
  value: unknown,
): Record<string, unknown> {
  return {
    blocked: outcome.blocked,
    ...(outcome.blocked ? { message: outcome.message, blocked_by: outcome.blockedBy } : {}),
    changed: outcome.changed,
    value,
    metadata: outcome.metadata,
    trace: outcome.trace.map((entry) => ({
      extension: entry.extension,
      action: entry.action,
      duration_ms: entry.durationMs,
      ...(entry.error === undefined ? {} : { error: entry.error }),
    })),
  };
}

type WireMessage = Record<string, unknown>;

export function messagesFromWire(messages: readonly WireMessage[]): ChatMessage[] {
  return messages.map((message) => {
    const { tool_calls, tool_call_id, ...rest } = message;
    return {
      ...rest,
      ...(tool_calls === undefined ? {} : { toolCalls: tool_calls }),
      ...(tool_call_id === undefined ? {} : { toolCallId: tool_call_id }),
    } as ChatMessage;
  });
}

export function messagesToWire(messages: readonly ChatMessage[]): WireMessage[] {
  return messages.map((message) => {
    const { toolCalls, toolCallId, ...rest } = message as ChatMessage & {
      toolCalls?: unknown;
      toolCallId?: unknown;
    };
    return {
      ...rest,
      ...(toolCalls === undefined ? {} : { tool_calls: toolCalls }),
      ...(toolCallId === undefined ? {} : { tool_call_id: toolCallId }),
    };
  });
}
