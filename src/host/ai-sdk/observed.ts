import type {
  LanguageModelV3,
  LanguageModelV3CallOptions,
  LanguageModelV3GenerateResult,
  LanguageModelV3StreamPart,
  LanguageModelV3StreamResult,
} from '@ai-sdk/provider';
import type { ApiAttempt, ApiRuntime, TurnTelemetry } from '../../observe/turn-telemetry.js';
import { fromSdkPrompt } from './prompt.js';

/** A provider request with its pre_api_request / post_api_request (or api_request_error). */
export async function observed(
  telemetry: TurnTelemetry,
  model: LanguageModelV3,
  params: LanguageModelV3CallOptions,
  doGenerate: () => PromiseLike<LanguageModelV3GenerateResult>,
): Promise<LanguageModelV3GenerateResult> {
  if (!telemetry.active) return doGenerate();
  const attempt = startAttempt(telemetry, model, params);
  try {
    const result = await doGenerate();
    const toolCalls = result.content.flatMap((c) =>
      c.type === 'tool-call'
        ? [{ id: c.toolCallId, name: c.toolName, arguments: argumentsOf(c.input) }]
        : [],
    );
    const responseModel = result.response?.modelId;
    telemetry.postApi(attempt, {
      content: result.content.map((c) => (c.type === 'text' ? c.text : '')).join(''),
      toolCalls,
      usage: {
        input_tokens: result.usage.inputTokens.total,
        output_tokens: result.usage.outputTokens.total,
      },
      ...(responseModel === undefined ? {} : { model: responseModel }),
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
  model: LanguageModelV3,
  params: LanguageModelV3CallOptions,
  doStream: () => PromiseLike<LanguageModelV3StreamResult>,
): Promise<LanguageModelV3StreamResult> {
  if (!telemetry.active) return doStream();
  const attempt = startAttempt(telemetry, model, params);
  let result: LanguageModelV3StreamResult;
  try {
    result = await doStream();
  } catch (error) {
    telemetry.apiError(attempt, error);
    throw error;
  }
  let content = '';
  let responseModel: string | undefined;
  const toolCalls: Array<{ id: string; name: string; arguments: Record<string, unknown> }> = [];
  const watched = result.stream.pipeThrough(
    new TransformStream<LanguageModelV3StreamPart, LanguageModelV3StreamPart>({
      transform(part, controller) {
        if (part.type === 'text-delta') content += part.delta;
        else if (part.type === 'tool-call')
          toolCalls.push({
            id: part.toolCallId,
            name: part.toolName,
            arguments: argumentsOf(part.input),
          });
        else if (part.type === 'response-metadata') responseModel = part.modelId ?? responseModel;
        else if (part.type === 'finish') {
          telemetry.postApi(attempt, {
            content,
            toolCalls,
            usage: {
              input_tokens: part.usage.inputTokens.total,
              output_tokens: part.usage.outputTokens.total,
            },
            ...(responseModel === undefined ? {} : { model: responseModel }),
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
function startAttempt(
  telemetry: TurnTelemetry,
  model: LanguageModelV3,
  params: LanguageModelV3CallOptions,
): ApiAttempt {
  const request = fromSdkPrompt(params.prompt);
  const tools = (params.tools ?? []).map((t) => ({ name: t.name }));
  return telemetry.preApi({ ...request, tools }, runtimeOf(model, params));
}

/**
 * What the SDK tells of a request's destination. Its provider ids name the API after a dot
 * (`openai.responses`, `anthropic.messages`): `provider` and `api_mode`. A provider keeps its
 * base URL to itself, so there is no `base_url`.
 */
function runtimeOf(model: LanguageModelV3, params: LanguageModelV3CallOptions): ApiRuntime {
  const [provider, ...api] = String(model.provider).split('.');
  return {
    model: model.modelId,
    provider,
    ...(api.length > 0 ? { apiMode: api.join('.') } : {}),
    ...(params.maxOutputTokens === undefined ? {} : { maxTokens: params.maxOutputTokens }),
  };
}

/** A tool call's input: JSON text from the provider. */
function argumentsOf(input: string): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(input);
    return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : { input: parsed };
  } catch {
    return { input };
  }
}
