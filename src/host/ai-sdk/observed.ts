import type {
  LanguageModelV3CallOptions,
  LanguageModelV3GenerateResult,
  LanguageModelV3StreamPart,
  LanguageModelV3StreamResult,
} from '@ai-sdk/provider';
import type { ApiAttempt, TurnTelemetry } from '../../observe/turn-telemetry.js';
import { fromSdkPrompt } from './prompt.js';

/** A provider request with its pre_api_request / post_api_request (or api_request_error). */
export async function observed(
  telemetry: TurnTelemetry,
  params: LanguageModelV3CallOptions,
  doGenerate: () => PromiseLike<LanguageModelV3GenerateResult>,
): Promise<LanguageModelV3GenerateResult> {
  if (!telemetry.active) return doGenerate();
  const attempt = startAttempt(telemetry, params);
  try {
    const result = await doGenerate();
    const toolCalls = result.content.flatMap((c) =>
      c.type === 'tool-call' ? [{ id: c.toolCallId, name: c.toolName, arguments: {} }] : [],
    );
    telemetry.postApi(attempt, {
      content: result.content.map((c) => (c.type === 'text' ? c.text : '')).join(''),
      toolCalls,
      usage: {
        input_tokens: result.usage.inputTokens.total,
        output_tokens: result.usage.outputTokens.total,
      },
    });
    return result;
  } catch (error) {
    telemetry.apiError(attempt, error);
    throw error;
  }
}

/** A streamed provider request: post_api_request when its `finish` part passes by. */
export async function observedStream(
  telemetry: TurnTelemetry,
  params: LanguageModelV3CallOptions,
  doStream: () => PromiseLike<LanguageModelV3StreamResult>,
): Promise<LanguageModelV3StreamResult> {
  if (!telemetry.active) return doStream();
  const attempt = startAttempt(telemetry, params);
  let result: LanguageModelV3StreamResult;
  try {
    result = await doStream();
  } catch (error) {
    telemetry.apiError(attempt, error);
    throw error;
  }
  let content = '';
  const toolCalls: Array<{ id: string; name: string; arguments: Record<string, unknown> }> = [];
  const watched = result.stream.pipeThrough(
    new TransformStream<LanguageModelV3StreamPart, LanguageModelV3StreamPart>({
      transform(part, controller) {
        if (part.type === 'text-delta') content += part.delta;
        else if (part.type === 'tool-call')
          toolCalls.push({ id: part.toolCallId, name: part.toolName, arguments: {} });
        else if (part.type === 'finish') {
          telemetry.postApi(attempt, {
            content,
            toolCalls,
            usage: {
              input_tokens: part.usage.inputTokens.total,
              output_tokens: part.usage.outputTokens.total,
            },
          });
        } else if (part.type === 'error') telemetry.apiError(attempt, part.error);
        controller.enqueue(part);
      },
    }),
  );
  return { ...result, stream: watched };
}

/**
 * pre_api_request for one step. The telemetry remembers it (`attempt`) as the parent of the tool
 * calls the step asks for: the SDK runs a step's tools after that step's request.
 */
function startAttempt(telemetry: TurnTelemetry, params: LanguageModelV3CallOptions): ApiAttempt {
  const request = fromSdkPrompt(params.prompt);
  const tools = (params.tools ?? []).map((t) => ({ name: t.name }));
  return telemetry.preApi({ ...request, tools });
}
