import type { ChatMessage, ToolCall } from '../hooks/messages.js';

/** How a tool is described to the model. */
export interface ToolSpec {
  name: string;
  description?: string;
  parameters?: unknown;
}

export interface ModelRequest {
  systemPrompt: string;
  messages: ChatMessage[];
  tools: ToolSpec[];
}

export interface ModelResponse {
  content: string;
  toolCalls?: ToolCall[];
  /** Token usage as the provider reports it; passed to observers. */
  usage?: Record<string, unknown>;
  /** The model that answered, as the provider names it: observers' `response_model`. */
  model?: string;
}

/**
 * The model as the reference loop talks to it (docs/hosts.md). Besides `name`, the optional
 * fields only tell observers where requests go (docs/observing.md). A failed `complete` may
 * reject with an error carrying `status`/`statusCode`, `retryable`/`isRetryable`,
 * `retryCount`, `maxRetries` and `reason`: `api_request_error` reports them.
 */
export interface ModelClient {
  /** Shown to `before_llm_call` handlers as `model`. */
  readonly name?: string;
  /** Who serves the model (`openai`, `anthropic`, …): observers' `provider`. */
  readonly provider?: string;
  /** The API's address: observers' `base_url`. */
  readonly baseUrl?: string;
  /** Which API of the provider (`chat_completions`, `responses`, …): observers' `api_mode`. */
  readonly apiMode?: string;
  /** The answer's token limit the client asks for: observers' `max_tokens`. */
  readonly maxTokens?: number;
  complete(request: ModelRequest): Promise<ModelResponse>;
}

export interface ToolDefinition {
  description?: string;
  parameters?: unknown;
  /** `signal` is the turn's, when the host gave one: a tool that can stop early should. */
  execute(
    args: Record<string, unknown>,
    context?: { signal?: AbortSignal },
  ): unknown | Promise<unknown>;
}

export type Tools = Record<string, ToolDefinition>;
