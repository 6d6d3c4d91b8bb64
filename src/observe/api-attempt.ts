import type { ChatMessage, ToolCall } from '../hooks/messages.js';
import { sanitize } from './sanitize.js';

/**
 * A model request as observers follow it — what it was, where it went, its ids — and the fields
 * every API event (`pre_api_request`, `post_api_request`, `api_request_error`) builds from it.
 */

/** A model request as observers are told of it: a host's `ModelRequest` (`host/types.ts`) is one. */
export interface ObservedRequest {
  systemPrompt: string;
  messages: readonly ChatMessage[];
  tools: ReadonlyArray<{ name: string; description?: string; parameters?: unknown }>;
}

/** A model's answer as observers are told of it: a host's `ModelResponse` is one. */
export interface ObservedResponse {
  content?: string;
  toolCalls?: readonly ToolCall[];
  usage?: Record<string, unknown>;
  /** The model that answered, as the provider names it (`response_model`). */
  model?: string;
}

/**
 * Where a model request goes, as far as the host knows: the API events' `model`, `provider`,
 * `base_url`, `api_mode` and `max_tokens`. A host's `ModelClient` is one.
 */
export interface ApiRuntime {
  /** The model asked for, when the turn's events do not already name one. */
  model?: string | undefined;
  provider?: string | undefined;
  baseUrl?: string | undefined;
  apiMode?: string | undefined;
  maxTokens?: number | undefined;
}

/** One model request as observers follow it. */
export interface ApiAttempt {
  id: string;
  count: number;
  startedAt: number;
  request: ObservedRequest;
  runtime?: ApiRuntime;
}

/** The attempt handed out when nobody observes: never reported, so never given an id. */
export const UNOBSERVED_ATTEMPT: ApiAttempt = Object.freeze({
  id: '',
  count: 0,
  startedAt: 0,
  request: Object.freeze({ systemPrompt: '', messages: [], tools: [] }),
});

/** The request's ids and, on every API event, where it went (what the host knows of it). */
export function apiIds(attempt: ApiAttempt) {
  const runtime = attempt.runtime;
  return {
    api_request_id: attempt.id,
    api_call_count: attempt.count,
    ...(runtime?.model === undefined ? {} : { model: runtime.model }),
    ...(runtime?.provider === undefined ? {} : { provider: runtime.provider }),
    ...(runtime?.baseUrl === undefined ? {} : { base_url: sanitize(runtime.baseUrl) }),
    ...(runtime?.apiMode === undefined ? {} : { api_mode: runtime.apiMode }),
  };
}

/**
 * `request_char_count`: the characters of the system prompt, the messages (with their tool
 * calls' arguments) and the tools' names, descriptions and parameter schemas.
 */
export function requestChars(request: ObservedRequest): number {
  let chars = request.systemPrompt.length;
  for (const message of request.messages) {
    chars += typeof message.content === 'string' ? message.content.length : 0;
    if ('toolCalls' in message && message.toolCalls)
      for (const call of message.toolCalls) chars += call.name.length + jsonLength(call.arguments);
  }
  for (const tool of request.tools) {
    chars += tool.name.length + (tool.description?.length ?? 0);
    if (tool.parameters !== undefined) chars += jsonLength(tool.parameters);
  }
  return chars;
}

function jsonLength(value: unknown): number {
  try {
    return JSON.stringify(value)?.length ?? 0;
  } catch {
    // A schema object that is not plain data (cycles, BigInt) counts for nothing.
    return 0;
  }
}
