import type { AgentIdentity } from '../hooks/agent-identity.js';
import type { ChatMessage, ToolCall } from '../hooks/messages.js';
import type { ConversationResult } from './conversation-types.js';

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

/** What a tool's `execute` is given besides its arguments. */
export interface ToolContext {
  /** The turn's signal, when the host gave one: a tool that can stop early should. */
  signal?: AbortSignal;
  /**
   * Runs a nested agent under the same runtime and turn: given by `runConversation` to a tool
   * declared with `subagentTool` (subagent.ts), and to no other.
   */
  runSubagent?: (options: SubagentOptions) => Promise<SubagentResult>;
}

export interface ToolDefinition {
  description?: string;
  parameters?: unknown;
  /**
   * Set by `subagentTool`: the tool starts a subagent. Its `intercept_tool_call` carries
   * `spawn: { covered: true }`, and its `execute` is given `runSubagent`.
   */
  subagent?: { type?: string };
  execute(args: Record<string, unknown>, context?: ToolContext): unknown | Promise<unknown>;
}

export type Tools = Record<string, ToolDefinition>;

/**
 * A nested agent a subagent tool runs (docs/hosts.md, Subagents). Its prompt is the model's
 * words, not the user's: `transform_user_input` does not run on it.
 */
export interface SubagentOptions {
  /** Its task: the first and only user message of its conversation. */
  prompt: string;
  systemPrompt: string;
  model: ModelClient;
  tools: Tools;
  /** Model requests at most. Default 20. */
  maxIterations?: number;
  /** Its id on every event. Default: `subagent-` and a random UUID. */
  id?: string;
  /** Its kind (`agent.type`, observers' `child_role`). Default: the tool's `subagent.type`. */
  type?: string;
  /** What it was asked to do, as `subagent_start` tells it (`child_goal`). Default: `prompt`. */
  goal?: string;
}

/** How a subagent's run ended, and who it was. */
export interface SubagentResult extends ConversationResult {
  agent: AgentIdentity;
}
