import type { AgentIdentity } from '../../hooks/agent-identity.js';
import type { TurnTelemetry } from '../../observe/turn-telemetry.js';
import { type Turn, turnTelemetry } from '../../runtime/turn.js';
import type { ApprovalRequest, Approver } from '../approval.js';
import type { ApprovalMemory } from '../approval-memory.js';

/**
 * Whose model and tools a wrapper serves in a turn: the main agent (no identity, the turn's
 * telemetry), or a subagent a tool started (subagent.ts), whose chains carry `agent` and whose
 * observer events carry its `agent_id` / `agent_type`.
 */
export interface AgentScope {
  readonly agent: AgentIdentity | undefined;
  readonly telemetry: TurnTelemetry;
}

export function mainScope(turn: Turn): AgentScope {
  return { agent: undefined, telemetry: turnTelemetry(turn) };
}

export interface HermesToolsOptions {
  /**
   * Decides a call a handler asked a person about (`ask`) in-process, as `runConversation`'s
   * `approve` does: `true` runs it, `false` (or a throw) gives the model the declined result.
   * Without it an ask becomes the SDK's tool approval: the result has a `tool-approval-request`
   * and the caller answers with a `tool-approval-response` (docs/hosts.md, Asking a person).
   */
  approve?: Approver;
  /**
   * Remembers an `approve` answer of `session` or `always` (`createApprovalMemory`). The SDK's
   * own tool approval answers yes or no, so it is not remembered there.
   */
  approvals?: ApprovalMemory;
}

/** The tools, and the asks waiting for an answer through the SDK's tool approval. */
export interface HermesTools<T> {
  tools: T;
  /** By tool call id: why each call of a `tool-approval-request` needs approval, who asked. */
  pendingApprovals: ReadonlyMap<string, ApprovalRequest>;
}
