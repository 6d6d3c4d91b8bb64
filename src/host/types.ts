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
}

/** The model as the reference loop talks to it (DESIGN §7). */
export interface ModelClient {
  /** Shown to `before_llm_call` handlers as `model`. */
  readonly name?: string;
  complete(request: ModelRequest): Promise<ModelResponse>;
}

export interface ToolDefinition {
  description?: string;
  parameters?: unknown;
  execute(args: Record<string, unknown>): unknown | Promise<unknown>;
}

export type Tools = Record<string, ToolDefinition>;
