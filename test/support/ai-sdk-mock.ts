import * as aiTest from 'ai/test';

/**
 * The AI SDK's mock model and the step results the AI SDK tests script it with. They run against
 * AI SDK 6 and (vitest project `ai-sdk-v7`, whose aliases point `ai/test` at it) AI SDK 7, whose
 * mock is `MockLanguageModelV4`.
 */
export const MockLanguageModel =
  ((aiTest as Record<string, unknown>).MockLanguageModelV4 as
    | typeof aiTest.MockLanguageModelV3
    | undefined) ?? aiTest.MockLanguageModelV3;

/** The token counts every scripted step reports. */
export const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 1, text: 1, reasoning: 0 },
};

/** A step in which the model calls `toolName` with `input`, as call `id`. */
export const callOf = (toolName: string, id: string, input: Record<string, unknown>) => ({
  content: [{ type: 'tool-call' as const, toolCallId: id, toolName, input: JSON.stringify(input) }],
  finishReason: { unified: 'tool-calls' as const, raw: undefined },
  usage,
  warnings: [],
});

/** A step in which the model answers `text` and stops. */
export const answer = (text: string) => ({
  content: [{ type: 'text' as const, text }],
  finishReason: { unified: 'stop' as const, raw: undefined },
  usage,
  warnings: [],
});
