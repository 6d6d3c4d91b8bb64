/**
 * `hermes-extensions/ai-sdk`: the three hooks in a Vercel AI SDK agent (`ai` v6, and v7 where
 * Node ≥ 22), inside `runtime.runTurn`:
 *
 *     await runtime.runTurn({ sessionId }, async (turn) => {
 *       const call = await withHermes(turn, { prompt, model, tools });
 *       if (call.blocked) return call.message;
 *       const { text } = await generateText({ ...call, stopWhen: stepCountIs(10) });
 *     });
 *
 * `prompt` goes through transform_user_input; the wrapped model runs before_llm_call before every
 * step of a multi-step `generateText`/`streamText` (a block answers with its message and the
 * provider is not called); each wrapped tool runs intercept_tool_call before `execute` (a block
 * keeps the tool from running and the model receives the blocked result; a rewrite runs it with
 * the new arguments).
 */
import type {
  LanguageModelV3,
  LanguageModelV3CallOptions,
  LanguageModelV3GenerateResult,
  LanguageModelV3Middleware,
  LanguageModelV3StreamPart,
  LanguageModelV3StreamResult,
} from '@ai-sdk/provider';
import { type ToolSet, wrapLanguageModel } from 'ai';
import { type ToolStatus, UNOBSERVED_ATTEMPT } from '../../observe/turn-telemetry.js';
import { type Turn, turnTelemetry } from '../../runtime/turn.js';
import { observed, observedStream } from './observed.js';
import { fromSdkPrompt, toSdkPrompt } from './prompt.js';

/** How a wrapped `execute` is called; the SDK's own options type differs between versions. */
type Execute = (
  input: unknown,
  options: { toolCallId: string } & Record<string, unknown>,
) => unknown;

const USAGE_NONE = {
  inputTokens: { total: 0, noCache: 0, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 0, text: 0, reasoning: 0 },
};

/** The before_llm_call middleware for `wrapLanguageModel`. */
export function hermesMiddleware(turn: Turn): LanguageModelV3Middleware {
  const blocks = new WeakMap<LanguageModelV3CallOptions, string>();
  const telemetry = turnTelemetry(turn);
  let iteration = 0;
  return {
    specificationVersion: 'v3',
    async transformParams({ params, model }) {
      const request = fromSdkPrompt(params.prompt);
      const outcome = await turn.beforeLlmCall({
        ...request,
        iteration: iteration++,
        model: model.modelId,
      });
      if (outcome.blocked) {
        const blocked = { ...params };
        blocks.set(blocked, outcome.message);
        return blocked;
      }
      return outcome.changed
        ? { ...params, prompt: toSdkPrompt(outcome.value, params.prompt) }
        : params;
    },
    async wrapGenerate({ doGenerate, params }) {
      const message = blocks.get(params);
      if (message === undefined) return observed(telemetry, params, doGenerate);
      return {
        content: [{ type: 'text', text: message }],
        finishReason: { unified: 'stop', raw: 'blocked-by-extension' },
        usage: USAGE_NONE,
        warnings: [],
      } satisfies LanguageModelV3GenerateResult;
    },
    async wrapStream({ doStream, params }) {
      const message = blocks.get(params);
      if (message === undefined) return observedStream(telemetry, params, doStream);
      const parts: LanguageModelV3StreamPart[] = [
        { type: 'stream-start', warnings: [] },
        { type: 'text-start', id: 'blocked' },
        { type: 'text-delta', id: 'blocked', delta: message },
        { type: 'text-end', id: 'blocked' },
        {
          type: 'finish',
          usage: USAGE_NONE,
          finishReason: { unified: 'stop', raw: 'blocked-by-extension' },
        },
      ];
      return {
        stream: new ReadableStream({
          start(controller) {
            for (const part of parts) controller.enqueue(part);
            controller.close();
          },
        }),
      } satisfies LanguageModelV3StreamResult;
    },
  };
}

/** The tools with intercept_tool_call in front of each `execute`. */
export function wrapTools<T extends ToolSet>(turn: Turn, tools: T): T {
  const telemetry = turnTelemetry(turn);
  const wrapped: Record<string, unknown> = {};
  for (const [name, tool] of Object.entries(tools)) {
    const execute = tool.execute as Execute | undefined;
    if (execute === undefined) {
      wrapped[name] = tool;
      continue;
    }
    wrapped[name] = {
      ...tool,
      execute: async (
        input: unknown,
        options: { toolCallId: string } & Record<string, unknown>,
      ) => {
        const args =
          input !== null && typeof input === 'object'
            ? (input as Record<string, unknown>)
            : { input };
        const call = { id: options.toolCallId, name, arguments: args };
        const attempt = telemetry.attempt ?? UNOBSERVED_ATTEMPT;
        const started = performance.now();
        const done = (status: ToolStatus, result: unknown, error?: unknown) =>
          telemetry.postTool(call, attempt, {
            status,
            result: typeof result === 'string' ? result : JSON.stringify(result ?? null),
            durationMs: performance.now() - started,
            ...(error === undefined ? {} : { error }),
          });
        telemetry.preTool(call, attempt);
        const outcome = await turn.interceptToolCall({
          toolName: name,
          toolArgs: args,
          toolCallId: options.toolCallId,
        });
        if (outcome.blocked) {
          const blocked = {
            error: outcome.message,
            blocked_by_extension: true,
            extension: outcome.blockedBy,
          };
          done('blocked', blocked);
          return blocked;
        }
        try {
          const result = await execute(outcome.value, options);
          done('ok', result);
          return result;
        } catch (error) {
          done('error', String(error), error);
          throw error;
        }
      },
    };
  }
  return wrapped as T;
}

/**
 * What `withHermes` returns. Narrowed by `blocked`, as `ChainOutcome` is: when it is true,
 * `message` is a string (the turn's answer), so `if (call.blocked) return call.message;` returns
 * a string under strict TypeScript.
 */
export type HermesCall<Model, Tools> = {
  /** The prompt after transform_user_input. */
  prompt: string;
  model: Model;
  tools: Tools;
} & (
  | {
      blocked: true;
      /** The block message: the turn's answer. */
      message: string;
    }
  | { blocked: false; message?: undefined }
);

/** Everything for one `generateText`/`streamText` call of a turn, from one call. */
export async function withHermes<Tools extends ToolSet = Record<string, never>>(
  turn: Turn,
  options: { prompt: string; model: LanguageModelV3; tools?: Tools },
): Promise<HermesCall<LanguageModelV3, Tools>> {
  const input = await turn.transformUserInput(options.prompt);
  const tools = wrapTools(turn, options.tools ?? ({} as Tools));
  const model = wrapLanguageModel({ model: options.model, middleware: hermesMiddleware(turn) });
  const call = { prompt: input.value, model, tools };
  return input.blocked
    ? { blocked: true, message: input.message, ...call }
    : { blocked: false, ...call };
}
