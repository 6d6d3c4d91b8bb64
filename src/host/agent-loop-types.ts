import type { AgentIdentity } from '../hooks/agent-identity.js';
import type { ChatMessage } from '../hooks/messages.js';
import type { TurnTelemetry } from '../observe/turn-telemetry.js';
import type { Turn } from '../runtime/turn.js';
import type { Approver } from './approval.js';
import type { ApprovalMemory } from './approval-memory.js';
import type { HookOutcomeReport, ToolCallRecord } from './conversation-types.js';
import type { ModelClient, Tools } from './types.js';

/** One agent's loop in a turn: the main agent's, or a subagent's (subagent.ts). */
export interface AgentLoop {
  turn: Turn;
  /** The subagent whose loop it is; absent for the main agent. */
  agent: AgentIdentity | undefined;
  systemPrompt: string;
  model: ModelClient;
  tools: Tools;
  maxIterations: number;
  signal: AbortSignal | undefined;
  taskId: string;
  approve: Approver | undefined;
  /** Remembered approvals (`session` and `always` answers); absent, every ask is asked. */
  approvals?: ApprovalMemory | undefined;
  /** Its observer events: a subagent's carry its `agent_id` / `agent_type`. */
  telemetry: TurnTelemetry;
  report: (report: HookOutcomeReport) => void;
}

/** How a loop ended: its last answer, and whether a block or the signal ended it. */
export interface LoopEnd {
  finalResponse: string;
  blocked: boolean;
  cancelled: boolean;
}

/** The loop itself (agent-loop.ts), handed to a subagent's run so the files import no cycle. */
export type RunLoop = (
  loop: AgentLoop,
  messages: ChatMessage[],
  toolCalls: ToolCallRecord[],
) => Promise<LoopEnd>;
