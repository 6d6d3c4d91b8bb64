import { z } from 'zod';

/** A tool call the model asked for (README, A host). */
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
