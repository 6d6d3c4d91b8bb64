import type { ChainOutcome } from '../chain/outcome.js';
import type { AgentIdentity } from '../hooks/agent-identity.js';
import type { ToolCall } from '../hooks/messages.js';
import { thrownErrorOf } from '../observe/api-error.js';
import type { ApiAttempt, ToolStatus, TurnTelemetry } from '../observe/turn-telemetry.js';
import type { Turn } from '../runtime/turn.js';
import {
  type Approver,
  answerOf,
  approvalRequest,
  decideApproval,
  declinedToolResult,
  type ToolApproval,
} from './approval.js';
import type { ApprovalMemory } from './approval-memory.js';
import { decodedBinary } from './binary-result.js';
import { blockedToolResult } from './blocked-tool-result.js';
import type { ToolCallRecord } from './conversation-types.js';
import type {
  SubagentOptions,
  SubagentResult,
  ToolContext,
  ToolDefinition,
  Tools,
} from './types.js';

/** What one tool call of an agent's loop needs from the loop (agent-loop.ts). */
export interface ToolCallContext {
  signal: AbortSignal | undefined;
  /** The subagent whose call it is; absent for the main agent. */
  agent: AgentIdentity | undefined;
  /** Runs a nested agent for a subagent tool (subagent.ts). */
  runSubagent: (declared: { type?: string }, options: SubagentOptions) => Promise<SubagentResult>;
  taskId: string;
  approve: Approver | undefined;
  approvals?: ApprovalMemory | undefined;
  telemetry: TurnTelemetry;
  attempt: ApiAttempt;
  report: (
    hook: 'intercept_tool_call' | 'transform_tool_result',
    outcome: ChainOutcome<unknown>,
  ) => void;
}

/**
 * One tool call of the reference loop: `intercept_tool_call` (with the calling agent, and
 * `spawn` for a subagent tool), an ask put to the approver, the tool itself, then
 * `transform_tool_result` over what it returned, before the model gets it.
 */
export async function runToolCall(
  turn: Turn,
  tools: Tools,
  call: ToolCall,
  context: ToolCallContext,
): Promise<ToolCallRecord> {
  const requestedArguments = call.arguments ?? {};
  const started = performance.now();
  const base = { id: call.id, name: call.name, requestedArguments };
  context.telemetry.preTool(call, context.attempt);
  // Observers get the result the model got: a redaction keeps a secret out of telemetry too.
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
  const declared = toolOf(tools, call.name)?.subagent;
  const outcome = await turn.interceptToolCall({
    toolName: call.name,
    toolArgs: requestedArguments,
    toolCallId: call.id,
    taskId: context.taskId,
    ...(context.agent === undefined ? {} : { agent: context.agent }),
    // Its subagent runs in this loop's turn: each of its calls goes through these chains.
    ...(declared === undefined ? {} : { spawn: { covered: true } }),
  });
  context.report('intercept_tool_call', outcome);
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
    approval = await decideApproval(context.approve, request, context.approvals);
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
  const executed = await executeTool(tools, call.name, outcome.value, context);
  const ran = { ...record, ...asked, blocked: false, status: executed.status };
  // A cancelled call returned nothing of the tool's: its result is the framework's own error. A
  // tool that finished as the signal fired still goes through the chain: its result stays in the
  // history the caller gets, which a later turn sends to the model.
  if (executed.status === 'cancelled') {
    return finish({ ...ran, result: textOf(executed.value) }, executed.error);
  }
  const transformed = await turn.transformToolResult({
    toolName: call.name,
    toolArgs: outcome.value,
    result: executed.value,
    isError: executed.status === 'error',
    toolCallId: call.id,
    taskId: context.taskId,
    ...(context.agent === undefined ? {} : { agent: context.agent }),
  });
  if (transformed.trace.length > 0) context.report('transform_tool_result', transformed);
  if (transformed.blocked) {
    return finish(
      { ...ran, result: blockedToolResult(transformed), resultBlockedBy: transformed.blockedBy },
      executed.error,
    );
  }
  return finish(
    {
      ...ran,
      result: textOf(transformed.value),
      ...(transformed.changed ? { resultRewritten: true } : {}),
    },
    executed.error,
  );
}

/** A result as the tool message's text: a string as it is, anything else as JSON. */
function textOf(value: unknown): string {
  return typeof value === 'string' ? value : value === undefined ? '' : JSON.stringify(value);
}

async function executeTool(
  tools: Tools,
  name: string,
  args: Record<string, unknown>,
  context: ToolCallContext,
): Promise<{ status: ToolStatus; value: unknown; error?: unknown }> {
  const { signal } = context;
  const tool = toolOf(tools, name);
  if (!tool) {
    const error = new Error(`unknown tool "${name}"`);
    return { status: 'error', value: { error: error.message }, error };
  }
  const declared = tool.subagent;
  const given: ToolContext = {
    ...(signal === undefined ? {} : { signal }),
    ...(declared === undefined
      ? {}
      : { runSubagent: (options: SubagentOptions) => context.runSubagent(declared, options) }),
  };
  try {
    const result = await (Object.keys(given).length > 0
      ? tool.execute(args, given)
      : tool.execute(args));
    // As the model will read it (JSON text, `toJSON` applied, binary data as its text), so what
    // the chain judges is what is sent: a value that reads differently a second time (a getter)
    // cannot pass one reading and send another. One that cannot be sent as JSON, or bytes that
    // are no text, fail here, as the tool's error.
    const decoded = decodedBinary(result);
    return {
      status: 'ok',
      value:
        typeof decoded === 'string' || decoded === undefined
          ? decoded
          : JSON.parse(JSON.stringify(decoded) ?? 'null'),
    };
  } catch (error) {
    // Read without a getter or a proxy able to throw: a broken error is still the tool failing.
    const { message } = thrownErrorOf(error);
    if (signal?.aborted)
      return {
        status: 'cancelled',
        value: { error: `tool "${name}" was cancelled` },
        error,
      };
    return {
      status: 'error',
      value: { error: `tool "${name}" failed: ${message}` },
      error,
    };
  }
}

function toolOf(tools: Tools, name: string): ToolDefinition | undefined {
  return Object.hasOwn(tools, name) ? tools[name] : undefined;
}
