import type { LanguageModelV3Message, LanguageModelV3Prompt } from '@ai-sdk/provider';
import type { ChatMessage } from '../../hooks/messages.js';

/**
 * The AI SDK's prompt as the runtime's `{ systemPrompt, messages }`, and back. Text, tool calls
 * and tool results map one to one; parts the runtime has no shape for (files, reasoning) stay in
 * the SDK messages they came with, which are reused as they were unless a handler rewrote them.
 */
export function fromSdkPrompt(prompt: LanguageModelV3Prompt): {
  systemPrompt: string;
  messages: ChatMessage[];
} {
  const system: string[] = [];
  const messages: ChatMessage[] = [];
  for (const message of prompt) {
    if (message.role === 'system') {
      system.push(message.content);
    } else if (message.role === 'user') {
      messages.push({ role: 'user', content: textOf(message.content) });
    } else if (message.role === 'assistant') {
      const toolCalls = message.content
        .filter((part) => part.type === 'tool-call')
        .map((part) => ({
          id: part.toolCallId,
          name: part.toolName,
          arguments: asRecord(part.input),
        }));
      messages.push({
        role: 'assistant',
        content: textOf(message.content),
        ...(toolCalls.length > 0 ? { toolCalls } : {}),
      });
    } else {
      for (const part of message.content) {
        if (part.type !== 'tool-result') continue;
        messages.push({
          role: 'tool',
          content: outputText(part.output),
          toolCallId: part.toolCallId,
          name: part.toolName,
        });
      }
    }
  }
  return { systemPrompt: system.join('\n\n'), messages };
}

/**
 * The request back in the SDK's shape. `original` and its conversion let unchanged messages keep
 * their own SDK form (with files, reasoning, provider options): the messages a handler left as
 * they were come back as they went in, and only new or rewritten ones are built from text.
 */
export function toSdkPrompt(
  request: { systemPrompt: string; messages: readonly ChatMessage[] },
  original: LanguageModelV3Prompt,
): LanguageModelV3Prompt {
  const originalMessages = original.filter((m) => m.role !== 'system');
  const converted = fromSdkPrompt(originalMessages).messages;
  const kept =
    sameMessages(converted, request.messages) && originalMessages.length === converted.length;
  const prompt: LanguageModelV3Prompt = request.systemPrompt
    ? [{ role: 'system', content: request.systemPrompt }]
    : [];
  if (kept) {
    prompt.push(...originalMessages);
    prompt.push(...request.messages.slice(converted.length).map(toSdkMessage));
  } else {
    prompt.push(...request.messages.map(toSdkMessage));
  }
  return prompt;
}

function sameMessages(before: readonly ChatMessage[], after: readonly ChatMessage[]): boolean {
  if (after.length < before.length) return false;
  return before.every((message, i) => JSON.stringify(message) === JSON.stringify(after[i]));
}

function toSdkMessage(message: ChatMessage): LanguageModelV3Message {
  if (message.role === 'system') return { role: 'system', content: message.content };
  if (message.role === 'user')
    return { role: 'user', content: [{ type: 'text', text: message.content }] };
  if (message.role === 'tool') {
    return {
      role: 'tool',
      content: [
        {
          type: 'tool-result',
          toolCallId: message.toolCallId,
          toolName: message.name,
          output: { type: 'text', value: message.content },
        },
      ],
    };
  }
  return {
    role: 'assistant',
    content: [
      ...(message.content ? [{ type: 'text' as const, text: message.content }] : []),
      ...(message.toolCalls ?? []).map((call) => ({
        type: 'tool-call' as const,
        toolCallId: call.id,
        toolName: call.name,
        input: call.arguments,
      })),
    ],
  };
}

function textOf(parts: ReadonlyArray<{ type: string; text?: string }>): string {
  return parts
    .filter((part) => part.type === 'text')
    .map((part) => part.text ?? '')
    .join('');
}

function outputText(output: { type: string; value?: unknown; reason?: string }): string {
  // A denied call has no value: its reason is what the model reads.
  if (output.type === 'execution-denied') return `execution denied: ${output.reason ?? ''}`.trim();
  if (typeof output.value === 'string') return output.value;
  return JSON.stringify(output.value ?? null);
}

function asRecord(input: unknown): Record<string, unknown> {
  if (typeof input === 'string') {
    try {
      return asRecord(JSON.parse(input));
    } catch {
      return { input };
    }
  }
  return input !== null && typeof input === 'object' && !Array.isArray(input)
    ? (input as Record<string, unknown>)
    : { input };
}
