import { z } from 'zod';

/** A tool call the model asked for (docs/hosts.md). */
export interface ToolCall {
  id: string;
  name: string;
  arguments: Record<string, unknown>;
}

/** One message of a conversation, in the shape every host adapter converts to and from. */
export type ChatMessage =
  | { role: 'user' | 'assistant' | 'system'; content: string; toolCalls?: ToolCall[] }
  | { role: 'tool'; content: string; toolCallId: string; name: string };

const toolCallSchema = z.object({
  id: z.string(),
  name: z.string(),
  arguments: z.record(z.string(), z.unknown()),
});

/** Used to validate messages that a `before_llm_call` handler rewrites. */
export const chatMessageSchema = z.union([
  z.object({
    role: z.enum(['user', 'assistant', 'system']),
    content: z.string(),
    toolCalls: z.array(toolCallSchema).optional(),
  }),
  z.object({
    role: z.literal('tool'),
    content: z.string(),
    toolCallId: z.string(),
    name: z.string(),
  }),
]);

type WireMessage = Record<string, unknown>;

/**
 * Messages over the bridge spell `tool_calls` and `tool_call_id` in snake_case. Only the keys the
 * protocol names are converted: a host's messages keep every other field they carry.
 */
export function messagesFromWire(messages: readonly object[]): ChatMessage[] {
  return messages.map((message) => {
    const { tool_calls, tool_call_id, ...rest } = message as WireMessage;
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
