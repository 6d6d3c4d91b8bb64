import type {
  LanguageModelV3CallOptions,
  LanguageModelV3GenerateResult,
  LanguageModelV3Middleware,
  LanguageModelV3StreamPart,
  LanguageModelV3StreamResult,
} from '@ai-sdk/provider';
import type { Turn } from '../../runtime/turn.js';
import { withDeniedReasons } from './denied-reasons.js';
import { gatedGenerate, gatedStream } from './final-answer.js';
import { observed, observedStream } from './observed.js';
import { fromSdkPrompt, toSdkPrompt } from './prompt.js';
import { offeredOnly } from './restrict.js';
import type { AgentScope } from './scope.js';

const USAGE_NONE = {
  inputTokens: { total: 0, noCache: 0, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 0, text: 0, reasoning: 0 },
};

/**
 * The before_llm_call middleware of one agent's model (scope.ts): the main agent's, or a
 * subagent's, whose requests carry its identity and whose observer events its `agent_id`. The
 * main agent's answer goes through transform_final_answer (final-answer.ts).
 */
export function scopedMiddleware(turn: Turn, scope: AgentScope): LanguageModelV3Middleware {
  const blocks = new WeakMap<LanguageModelV3CallOptions, string>();
  const { telemetry, agent } = scope;
  let iteration = 0;
  // Only the main agent's answer reaches the user: a subagent's goes to its parent's model.
  const gatesAnswers = () => agent === undefined && turn.hasHandlers('transform_final_answer');
  return {
    specificationVersion: 'v3',
    async transformParams({ params: given, model }) {
      // A call a person denied: its result says why the guard asked (denied-reasons.ts).
      // The person's no, told to observers once (the history repeats it in every later step).
      const denied = withDeniedReasons(given.prompt, turn.sessionId, (pending, reason) =>
        telemetry.approvalAnswered(pending, {
          choice: 'deny',
          answeredVia: 'tool_approval_response',
          ...(reason === undefined ? {} : { reason }),
        }),
      );
      const params = denied === given.prompt ? given : { ...given, prompt: denied };
      const request = fromSdkPrompt(params.prompt);
      const outcome = await turn.beforeLlmCall({
        ...request,
        iteration: iteration++,
        model: model.modelId,
        // The step's tools (the SDK's `activeTools` already applied): handlers may narrow them.
        tools: (params.tools ?? []).map((tool) => tool.name),
        ...(agent === undefined ? {} : { agent }),
      });
      if (outcome.blocked) {
        const blocked = { ...params };
        blocks.set(blocked, outcome.message);
        return blocked;
      }
      const prompted = outcome.changed
        ? { ...params, prompt: toSdkPrompt(outcome.value, params.prompt) }
        : params;
      return offeredOnly(prompted, outcome.value.tools);
    },
    async wrapGenerate({ doGenerate, params, model }) {
      const message = blocks.get(params);
      if (message === undefined) {
        const result = await observed(telemetry, model, params, doGenerate);
        return gatesAnswers() ? gatedGenerate(turn, result) : result;
      }
      return {
        content: [{ type: 'text', text: message }],
        finishReason: { unified: 'stop', raw: 'blocked-by-extension' },
        usage: USAGE_NONE,
        warnings: [],
      } satisfies LanguageModelV3GenerateResult;
    },
    async wrapStream({ doStream, params, model }) {
      const message = blocks.get(params);
      if (message === undefined) {
        const result = await observedStream(telemetry, model, params, doStream);
        return gatesAnswers() ? gatedStream(turn, result) : result;
      }
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
