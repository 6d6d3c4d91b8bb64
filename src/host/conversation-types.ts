import type { ChainOutcome } from '../chain/outcome.js';
import type { AgentIdentity } from '../hooks/agent-identity.js';
import type { HookName } from '../hooks/index.js';
import type { ChatMessage, ToolCall } from '../hooks/messages.js';
import type { ToolStatus } from '../observe/turn-telemetry.js';
import type { ToolApproval } from './approval.js';

/** One chain run of the loop, as `onHookOutcome` is told of it. */
export interface HookOutcomeReport {
  hook: HookName;
  outcome: ChainOutcome<unknown>;
  /** The model request's iteration (`before_llm_call` and the tool hooks). */
  iteration?: number;
  /** The tool call it decided on (`intercept_tool_call`, `transform_tool_result`). */
  toolCall?: ToolCall;
  /** The subagent whose loop ran the chain (subagent.ts); absent for the main agent. */
  agent?: AgentIdentity;
}

/** What became of one tool call the model asked for. */
export interface ToolCallRecord {
  id: string;
  name: string;
  /** The arguments the tool ran with (after any rewrite), or would have run with if blocked. */
  arguments: Record<string, unknown>;
  /** The arguments the model asked for. */
  requestedArguments: Record<string, unknown>;
  /** Blocked by a handler, or asked about and not approved (`approval` then says so). */
  blocked: boolean;
  /** The extension that blocked it, or that asked about it when it was not approved. */
  blockedBy?: string;
  rewritten: boolean;
  /** A handler asked for approval: what it asked, and what the approver decided. */
  approval?: ToolApproval;
  /**
   * `ok`, `error` (the tool failed or does not exist), `blocked` (also when an ask was not
   * approved) or `cancelled`.
   */
  status: ToolStatus;
  /** The tool message content the model received: after `transform_tool_result`. */
  result: string;
  /** A `transform_tool_result` handler rewrote what the tool returned. */
  resultRewritten?: true;
  /** The extension whose `transform_tool_result` block put a refusal in place of the result. */
  resultBlockedBy?: string;
}

export interface ConversationResult {
  finalResponse: string;
  /** The history after this turn: without any ephemeral `before_llm_call` injection. */
  messages: ChatMessage[];
  blocked: boolean;
  /** The turn was cancelled through `signal`. */
  cancelled: boolean;
  toolCalls: ToolCallRecord[];
}
