import type { ToolSet } from 'ai';
import type { ChainOutcome } from '../../chain/outcome.js';
import { thrownErrorOf } from '../../observe/api-error.js';
import type { AskedCall } from '../../observe/approval-events.js';
import { type ToolStatus, UNOBSERVED_ATTEMPT } from '../../observe/turn-telemetry.js';
import type { Turn } from '../../runtime/turn.js';
import {
  type ApprovalRequest,
  answerOf,
  approvalRequest,
  decideApproval,
  declinedToolResult,
} from '../approval.js';
import { decodedBinary } from '../binary-result.js';
import { blockedToolError } from '../blocked-tool-result.js';
import { approvedInMessages } from './approvals.js';
import { rememberAsk, takePendingApproval } from './denied-reasons.js';
import { type AgentScope, type HermesTools, type HermesToolsOptions, mainScope } from './scope.js';
import { runSubagent, subagentOf } from './subagent.js';
import { transformedError, transformedResult } from './tool-result.js';

/** How a wrapped `execute` is called; the SDK's own options type differs between versions. */
type Execute = (
  input: unknown,
  options: { toolCallId: string; messages?: unknown } & Record<string, unknown>,
) => unknown;
/** A tool's own `needsApproval`, called the way the SDK calls it. */
type NeedsApproval =
  | boolean
  | ((input: unknown, options: { toolCallId: string; messages?: unknown }) => unknown);

export type { HermesTools, HermesToolsOptions } from './scope.js';

type Outcome = ChainOutcome<Record<string, unknown>>;
type Done = (status: ToolStatus, result: unknown, error?: unknown) => void;

/**
 * The tools with intercept_tool_call in front of each `execute`, and transform_tool_result over
 * what it returns or throws (tool-result.ts). intercept_tool_call runs once per call:
 * `needsApproval` runs it first (an ask needs approval), and `execute` then uses that outcome,
 * so a rewrite or a block still applies when the call runs.
 */
export function hermesTools<T extends ToolSet>(
  turn: Turn,
  tools: T,
  options: HermesToolsOptions = {},
): HermesTools<T> {
  return scopedTools(turn, tools, options, mainScope(turn));
}

/** `hermesTools` for one agent of the turn (scope.ts): a subagent's calls carry its identity. */
export function scopedTools<T extends ToolSet>(
  turn: Turn,
  tools: T,
  options: HermesToolsOptions,
  scope: AgentScope,
): HermesTools<T> {
  const { telemetry, agent } = scope;
  const { approve, approvals } = options;
  const outcomes = new Map<string, Promise<Outcome>>();
  /** Calls whose pre_tool_call was sent and whose post_tool_call was not. */
  const open = new Map<string, Done>();
  const pendingApprovals = new Map<string, ApprovalRequest>();

  /**
   * The call's chain outcome, run once; pre_tool_call goes out before the chain runs. A call is
   * its name, id and input: a model that sends another input under the same id makes another call.
   */
  const intercept = (
    name: string,
    args: Record<string, unknown>,
    toolCallId: string,
    spawns: boolean,
  ) => {
    const key = `${name}\u0000${toolCallId}\u0000${JSON.stringify(args)}`;
    if (!open.has(key)) {
      const call = { id: toolCallId, name, arguments: args };
      const attempt = telemetry.attempt ?? UNOBSERVED_ATTEMPT;
      const started = performance.now();
      telemetry.preTool(call, attempt);
      open.set(key, (status, result, error) => {
        open.delete(key);
        telemetry.postTool(call, attempt, {
          status,
          result: typeof result === 'string' ? result : JSON.stringify(result ?? null),
          durationMs: performance.now() - started,
          ...(error === undefined ? {} : { error }),
        });
      });
    }
    let outcome = outcomes.get(key);
    if (outcome === undefined) {
      outcome = Promise.resolve(
        turn.interceptToolCall({
          toolName: name,
          toolArgs: args,
          toolCallId,
          ...(agent === undefined ? {} : { agent }),
          // Its nested call runs in this turn (subagent.ts): each of its calls is judged here.
          ...(spawns ? { spawn: { covered: true } } : {}),
        }),
      );
      outcomes.set(key, outcome);
    }
    const done: Done = (status, result, error) => open.get(key)?.(status, result, error);
    return { outcome, done, forget: () => outcomes.delete(key) };
  };
  const askOf = (name: string, toolCallId: string, outcome: Outcome) =>
    outcome.blocked || outcome.ask === undefined
      ? undefined
      : approvalRequest(
          outcome.ask,
          { toolName: name, toolArgs: outcome.value, toolCallId },
          { sessionId: turn.sessionId, turnId: turn.turnId, taskId: turn.turnId },
        );

  const wrapped: Record<string, unknown> = {};
  for (const [name, tool] of Object.entries(tools)) {
    const execute = tool.execute as Execute | undefined;
    if (execute === undefined) {
      wrapped[name] = tool;
      continue;
    }
    const declared = subagentOf(tool);
    const spawns = declared !== undefined;
    const own = tool.needsApproval as NeedsApproval | undefined;
    const needsApproval = async (
      input: unknown,
      context: { toolCallId: string; messages?: unknown },
    ) => {
      // A person answered this very call: the SDK runs `execute`, and `execute` decides.
      if (
        approvedInMessages(context.messages, {
          toolCallId: context.toolCallId,
          toolName: name,
          input,
        })
      )
        return true;
      const { outcome, done } = intercept(name, argsOf(input), context.toolCallId, spawns);
      const settled = await outcome;
      if (settled.blocked) return false;
      const request = askOf(name, context.toolCallId, settled);
      if (request !== undefined) {
        pendingApprovals.set(context.toolCallId, request);
        rememberAsk(
          request,
          telemetry.approvalRequested(askedCall(request, settled, 'tool_approval')),
        );
        // The call does not run in this step; if approved later, it is a call of its own.
        done('blocked', { awaiting_approval: request.message, extension: request.askedBy });
        return true;
      }
      if (own === undefined) return false;
      return typeof own === 'boolean' ? own : Boolean(await own(input, context));
    };
    wrapped[name] = {
      ...tool,
      // An approver decides in-process, inside execute; the tool's own approval stays the SDK's.
      ...(approve === undefined ? { needsApproval } : {}),
      execute: async (
        input: unknown,
        context: { toolCallId: string; messages?: unknown } & Record<string, unknown>,
      ) => {
        const { outcome, done, forget } = intercept(
          name,
          argsOf(input),
          context.toolCallId,
          spawns,
        );
        let settled: Outcome;
        try {
          settled = await outcome;
        } finally {
          forget();
        }
        if (settled.blocked) {
          const blocked = blockedToolError(settled);
          done('blocked', blocked);
          return blocked;
        }
        const request = askOf(name, context.toolCallId, settled);
        if (request !== undefined) {
          pendingApprovals.delete(context.toolCallId);
          // With an approver, it decides every ask: a yes in the messages was for the SDK's own.
          const answered =
            approve === undefined &&
            approvedInMessages(context.messages, {
              toolCallId: context.toolCallId,
              toolName: name,
              input,
            });
          let approval: { approved: boolean; failure?: string };
          if (answered) {
            // A yes through the SDK's tool approval: the request was told at needsApproval.
            telemetry.approvalAnswered(takePendingApproval(turn.sessionId, context.toolCallId), {
              choice: 'once',
              answeredVia: 'tool_approval_response',
            });
            approval = { approved: true };
          } else {
            const pending = telemetry.approvalRequested(askedCall(request, settled, 'approver'));
            const decided = await decideApproval(approve, request, approvals);
            telemetry.approvalAnswered(pending, answerOf(decided, approve));
            approval = decided;
          }
          if (!approval.approved) {
            const declined = declinedToolResult({
              ...approval,
              asked: request.message,
              askedBy: request.askedBy,
            });
            done('blocked', declined);
            return declined;
          }
        }
        const ran = {
          toolName: name,
          toolArgs: settled.value,
          toolCallId: context.toolCallId,
          agent,
        };
        let result: unknown;
        try {
          const returned = await (declared === undefined
            ? execute(settled.value, context)
            : runSubagent(turn, scope, declared, settled.value, context, scopedTools));
          // Binary data as its text, so the redactor sees what the model gets; bytes that are no
          // text are the tool failing (src/host/binary-result.ts).
          result = decodedBinary(returned);
        } catch (error) {
          // The model reads a thrown tool's message: it goes through transform_tool_result too.
          const { message } = thrownErrorOf(error);
          const transformed = await transformedError(turn, ran, error, message);
          if ('returns' in transformed) {
            // Without the error: its message is what the block hides, from observers too.
            done('error', transformed.returns);
            return transformed.returns;
          }
          done('error', thrownErrorOf(transformed.throws).message, transformed.throws);
          throw transformed.throws;
        }
        // Observers get the result the model gets: a redaction keeps a secret out of telemetry.
        const transformed = await transformedResult(turn, ran, result);
        done('ok', transformed);
        return transformed;
      },
    };
  }
  return { tools: wrapped as T, pendingApprovals };
}

/** The ask as observers are told of it: `surface` says who asks the person. */
function askedCall(request: ApprovalRequest, outcome: Outcome, surface: string): AskedCall {
  return {
    ...request,
    ask: { message: request.message, askedBy: request.askedBy },
    trace: outcome.trace,
    surface,
    host: 'ai_sdk',
  };
}

function argsOf(input: unknown): Record<string, unknown> {
  return input !== null && typeof input === 'object'
    ? (input as Record<string, unknown>)
    : { input };
}
