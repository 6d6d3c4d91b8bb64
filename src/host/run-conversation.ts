import type { ChainOutcome } from '../chain/outcome.js';
import type { HookName } from '../hooks/index.js';
import type { ChatMessage, ToolCall } from '../hooks/messages.js';
import { thrownErrorOf } from '../observe/api-error.js';
import type { ApiAttempt, ToolStatus, TurnTelemetry } from '../observe/turn-telemetry.js';
import type { Runtime } from '../runtime/runtime.js';
import { type Turn, turnTelemetry } from '../runtime/turn.js';
import {
  type Approver,
  answerOf,
  approvalRequest,
  decideApproval,
  declinedToolResult,
  type ToolApproval,
} from './approval.js';
import { blockedToolResult } from './blocked-tool-result.js';
import type { ModelClient, ToolSpec, Tools } from './types.js';

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
  /** Who wrote the message (a chat user's id): `pre_llm_call`'s `sender_id`. */
  senderId?: string;
  /** `post_llm_call` carries the conversation after the turn (`conversation_history`). */
  captureConversationHistory?: boolean;
}

/** One chain run of the loop, as `onHookOutcome` is told of it. */
export interface HookOutcomeReport {
  hook: HookName;
  outcome: ChainOutcome<unknown>;
  /** The model request's iteration (`before_llm_call`, `intercept_tool_call`). */
  iteration?: number;
  /** The tool call it decided on (`intercept_tool_call`). */
  toolCall?: ToolCall;
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
  /** The tool message content the model received. */
  result: string;
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

export const DEFAULT_MAX_ITERATIONS = 20;

/**
 * The reference agent loop (docs/hosts.md), one turn of it, with the three hooks where the
 * README's loop puts them. Tool calls of one response go through the chain and run one
 * after another, in the order the model gave them, so per-turn state evolves predictably.
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

    const toolSpecs = describeTools(tools);
    const toolNames = toolSpecs.map((spec) => spec.name);
    let finalResponse = '';
    for (let iteration = 0; iteration < maxIterations; iteration++) {
      if (signal?.aborted) {
        reason = 'cancelled';
        return result(finalResponse, { cancelled: true });
      }
      const request = await turn.beforeLlmCall({
        systemPrompt,
        messages,
        iteration,
        tools: toolNames,
        ...(model.name === undefined ? {} : { model: model.name }),
      });
      report({ hook: 'before_llm_call', outcome: request, iteration });
      if (request.blocked) {
        messages.push({ role: 'assistant', content: request.message });
        reason = 'blocked';
        completed = true;
        return result(request.message, { blocked: true });
      }
      const modelRequest = {
        systemPrompt: request.value.systemPrompt,
        // A copy: the model client may keep or change what it is given.
        messages: [...request.value.messages],
        tools: offeredTools(toolSpecs, request.value.tools),
      };
      const attempt = telemetry.preApi(modelRequest, model);
      let response: Awaited<ReturnType<typeof model.complete>>;
      try {
        response = await model.complete(modelRequest);
      } catch (error) {
        telemetry.apiError(attempt, error);
        throw error;
      }
      telemetry.postApi(attempt, response);
      finalResponse = response.content ?? '';
      const calls = response.toolCalls ?? [];
      messages.push(
        calls.length > 0
          ? { role: 'assistant', content: finalResponse, toolCalls: calls }
          : { role: 'assistant', content: finalResponse },
      );
      if (calls.length === 0) break;
      for (const call of calls) {
        const record = await runToolCall(turn, tools, call, {
          signal,
          taskId,
          approve: options.approve,
          telemetry,
          attempt,
          report: (outcome) =>
            report({ hook: 'intercept_tool_call', outcome, iteration, toolCall: call }),
        });
        toolCalls.push(record);
        messages.push({
          role: 'tool',
          content: record.result,
          toolCallId: call.id,
          name: call.name,
        });
      }
    }
    if (signal?.aborted) {
      reason = 'cancelled';
      return result(finalResponse, { cancelled: true });
    }
    telemetry.postLlm(
      input.value,
      finalResponse,
      options.captureConversationHistory ? messages : undefined,
    );
    completed = true;
    reason = 'completed';
    return result(finalResponse);
  } finally {
    telemetry.sessionEnd(completed, reason === 'cancelled', reason);
  }
}

interface ToolCallContext {
  signal: AbortSignal | undefined;
  taskId: string;
  approve: Approver | undefined;
  telemetry: TurnTelemetry;
  attempt: ApiAttempt;
  report: (outcome: ChainOutcome<Record<string, unknown>>) => void;
}

async function runToolCall(
  turn: Turn,
  tools: Tools,
  call: ToolCall,
  context: ToolCallContext,
): Promise<ToolCallRecord> {
  const requestedArguments = call.arguments ?? {};
  const started = performance.now();
  const base = { id: call.id, name: call.name, requestedArguments };
  context.telemetry.preTool(call, context.attempt);
  const finish = (record: ToolCallRecord, error?: unknown): ToolCallRecord => {
    context.telemetry.postTool(call, context.attempt, {
      status: record.status,
      result: record.result,
      durationMs: performance.now() - started,
      ...(error === undefined ? {} : { error }),
    });
    return record;
  };
  if (context.signal?.aborted) {
    const result = JSON.stringify({ error: 'cancelled before the tool ran' });
    return finish({
      ...base,
      arguments: requestedArguments,
      blocked: false,
      rewritten: false,
      status: 'cancelled',
      result,
    });
  }
  const outcome = await turn.interceptToolCall({
    toolName: call.name,
    toolArgs: requestedArguments,
    toolCallId: call.id,
    taskId: context.taskId,
  });
  context.report(outcome);
  const record = { ...base, arguments: outcome.value, rewritten: outcome.changed };
  if (outcome.blocked) {
    const result = blockedToolResult(outcome);
    return finish({
      ...record,
      blocked: true,
      blockedBy: outcome.blockedBy,
      status: 'blocked',
      result,
    });
  }
  let approval: ToolApproval | undefined;
  if (outcome.ask) {
    const request = approvalRequest(
      outcome.ask,
      { toolName: call.name, toolArgs: outcome.value, toolCallId: call.id },
      { sessionId: turn.sessionId, turnId: turn.turnId, taskId: context.taskId },
    );
    const pending = context.telemetry.approvalRequested({
      ...request,
      ask: outcome.ask,
      trace: outcome.trace,
      surface: 'approver',
      host: 'run_conversation',
    });
    approval = await decideApproval(context.approve, request);
    context.telemetry.approvalAnswered(pending, answerOf(approval, context.approve));
    if (!approval.approved) {
      return finish({
        ...record,
        blocked: true,
        blockedBy: approval.askedBy,
        approval,
        status: 'blocked',
        result: JSON.stringify(declinedToolResult(approval)),
      });
    }
  }
  const asked = approval === undefined ? {} : { approval };
  if (approval !== undefined && context.signal?.aborted) {
    // A person may take a while: the turn can have been cancelled meanwhile.
    const result = JSON.stringify({ error: 'cancelled before the tool ran' });
    return finish({ ...record, ...asked, blocked: false, status: 'cancelled', result });
  }
  const executed = await executeTool(tools, call.name, outcome.value, context.signal);
  return finish(
    { ...record, ...asked, blocked: false, status: executed.status, result: executed.result },
    executed.error,
  );
}

async function executeTool(
  tools: Tools,
  name: string,
  args: Record<string, unknown>,
  signal: AbortSignal | undefined,
): Promise<{ status: ToolStatus; result: string; error?: unknown }> {
  const tool = Object.hasOwn(tools, name) ? tools[name] : undefined;
  if (!tool) {
    const error = new Error(`unknown tool "${name}"`);
    return { status: 'error', result: JSON.stringify({ error: error.message }), error };
  }
  try {
    const result = await (signal ? tool.execute(args, { signal }) : tool.execute(args));
    return {
      status: 'ok',
      result:
        typeof result === 'string' ? result : result === undefined ? '' : JSON.stringify(result),
    };
  } catch (error) {
    // Read without a getter or a proxy able to throw: a broken error is still the tool failing.
    const { message } = thrownErrorOf(error);
    if (signal?.aborted)
      return {
        status: 'cancelled',
        result: JSON.stringify({ error: `tool "${name}" was cancelled` }),
        error,
      };
    return {
      status: 'error',
      result: JSON.stringify({ error: `tool "${name}" failed: ${message}` }),
      error,
    };
  }
}

/** The specs of the tools the request offers, after any `restrictTools` (all when it says none). */
function offeredTools(specs: ToolSpec[], names: readonly string[] | undefined): ToolSpec[] {
  if (names === undefined) return specs;
  const offered = new Set(names);
  return specs.filter((spec) => offered.has(spec.name));
}

function describeTools(tools: Tools): ToolSpec[] {
  return Object.entries(tools).map(([name, tool]) => ({
    name,
    ...(tool.description === undefined ? {} : { description: tool.description }),
    ...(tool.parameters === undefined ? {} : { parameters: tool.parameters }),
  }));
}
