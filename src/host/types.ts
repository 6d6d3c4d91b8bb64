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
}

/** The model as the reference loop talks to it (README, A host). */
export interface ModelClient {
  /** Shown to `before_llm_call` handlers as `model`. */
  readonly name?: string;
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
