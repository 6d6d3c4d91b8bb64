import type { ChatMessage } from '../hooks/messages.js';
import type { Runtime } from '../runtime/runtime.js';
import { type Turn, turnTelemetry } from '../runtime/turn.js';
import { runAgentLoop } from './agent-loop.js';
import type { Approver } from './approval.js';
import type { ApprovalMemory } from './approval-memory.js';
import type {
  ConversationResult,
  HookOutcomeReport,
  ToolCallRecord,
} from './conversation-types.js';
import { DEFAULT_MAX_ITERATIONS } from './defaults.js';
import type { ModelClient, Tools } from './types.js';

export type { ConversationResult, HookOutcomeReport, ToolCallRecord };
export { DEFAULT_MAX_ITERATIONS };

export interface RunConversationOptions {
  runtime: Runtime;
  sessionId: string;
  platform?: string;
  turnId?: string;
  userMessage: string;
  systemPrompt: string;
  /** Earlier messages of the session. Never mutated. */
  history?: readonly ChatMessage[];
  model: ModelClient;
  tools: Tools;
  /** Model requests per turn at most. Default 20. */
  maxIterations?: number;
  /** Told every chain's outcome as it happens (for logs, traces, a demo's story). Return ignored. */
  onHookOutcome?: (report: HookOutcomeReport) => void;
  /** Cancels the turn: tool calls not yet run are `cancelled`, and no further model request is made. */
  signal?: AbortSignal;
  /** The task id observers and tool-call hooks see. Default: the turn id. */
  taskId?: string;
  /**
   * Asked about each tool call an `intercept_tool_call` handler asked a person about (`ask`):
   * `true` runs it, `false` declines it. Without one, such a call is declined with the reason;
   * one that throws or rejects declines it too (docs/hosts.md, Asking a person).
   */
  approve?: Approver;
  /**
   * Remembers `session` and `always` answers (`createApprovalMemory`); without it every ask is
   * asked (docs/hosts.md, Remembered approvals).
   */
  approvals?: ApprovalMemory;
  /** Who wrote the message (a chat user's id): `pre_llm_call`'s `sender_id`. */
  senderId?: string;
  /** `post_llm_call` carries the conversation after the turn (`conversation_history`). */
  captureConversationHistory?: boolean;
}

/**
 * The reference agent loop (docs/hosts.md), one turn of it, with the hooks where the
 * README's loop puts them. Tool calls of one response go through the chain and run one
 * after another, in the order the model gave them, so per-turn state evolves predictably.
 * A tool made with `subagentTool` runs a nested agent in this same turn (subagent.ts).
 */
export function runConversation(options: RunConversationOptions): Promise<ConversationResult> {
  const { runtime, sessionId, platform, turnId } = options;
  return runtime.runTurn({ sessionId, platform, turnId }, (turn) => converse(turn, options));
}

async function converse(turn: Turn, options: RunConversationOptions): Promise<ConversationResult> {
  const { model, tools, systemPrompt, signal, maxIterations = DEFAULT_MAX_ITERATIONS } = options;
  const history = options.history ?? [];
  const messages: ChatMessage[] = [...history];
  const toolCalls: ToolCallRecord[] = [];
  const taskId = options.taskId ?? turn.turnId;
  // The turn reports its decisions (hook_decision) with these ids too.
  const telemetry = turnTelemetry(turn).identify({
    task_id: taskId,
    model: model.name,
    provider: model.provider,
  });
  const report = (hookReport: HookOutcomeReport) => options.onHookOutcome?.(hookReport);
  const result = (
    finalResponse: string,
    ended: { blocked?: boolean; cancelled?: boolean } = {},
  ) => ({
    finalResponse,
    messages,
    blocked: ended.blocked ?? false,
    cancelled: ended.cancelled ?? false,
    toolCalls,
  });

  telemetry.sessionStart(history.length === 0);
  let completed = false;
  let reason = 'error';
  try {
    const input = await turn.transformUserInput(options.userMessage);
    report({ hook: 'transform_user_input', outcome: input });
    if (input.blocked) {
      reason = 'blocked';
      completed = true;
      return result(input.message, { blocked: true });
    }
    messages.push({ role: 'user', content: input.value });
    telemetry.preLlm(input.value, history, options.senderId);

    const end = await runAgentLoop(
      {
        turn,
        agent: undefined,
        systemPrompt,
        model,
        tools,
        maxIterations,
        signal,
        taskId,
        approve: options.approve,
        approvals: options.approvals,
        telemetry,
        report,
      },
      messages,
      toolCalls,
    );
    const { finalResponse } = end;
    if (end.blocked) {
      reason = 'blocked';
      completed = true;
      return result(finalResponse, { blocked: true });
    }
    if (end.cancelled) {
      reason = 'cancelled';
      return result(finalResponse, { cancelled: true });
    }
    const gated = await gateAnswer(turn, finalResponse, messages, history.length, report);
    telemetry.postLlm(
      input.value,
      gated.answer,
      options.captureConversationHistory ? messages : undefined,
    );
    completed = true;
    reason = gated.blocked ? 'blocked' : 'completed';
    return result(gated.answer, { blocked: gated.blocked });
  } finally {
    telemetry.sessionEnd(completed, reason === 'cancelled', reason);
  }
}

/**
 * The turn's last answer through `transform_final_answer`. The history keeps what the user was
 * shown: a rewritten or withheld answer replaces the model's own in the last assistant message,
 * so a later turn does not send the model's withheld words on as if they had been said.
 */
async function gateAnswer(
  turn: Turn,
  answer: string,
  messages: ChatMessage[],
  /** Where this turn's messages start: earlier turns' messages are never changed. */
  turnStart: number,
  report: (hookReport: HookOutcomeReport) => void,
): Promise<{ answer: string; blocked: boolean }> {
  if (!turn.hasHandlers('transform_final_answer')) return { answer, blocked: false };
  const outcome = await turn.transformFinalAnswer(answer);
  report({ hook: 'transform_final_answer', outcome });
  if (!outcome.blocked && !outcome.changed) return { answer, blocked: false };
  const shown = outcome.blocked ? outcome.message : outcome.value;
  // The last assistant message: the answer, or (when the loop ran out of requests) the one whose
  // tool calls came last, whose text is the answer.
  const at = messages.findLastIndex((message) => message.role === 'assistant');
  const last = messages[at];
  if (last !== undefined && at >= turnStart) messages[at] = { ...last, content: shown };
  return { answer: shown, blocked: outcome.blocked };
}
