import type { ApprovalAsk } from '../chain/outcome.js';
import { type ApprovalGrant, grantCovers, type RememberScope } from '../hooks/remember-scope.js';
import type { ApprovalAnswer } from '../observe/approval-events.js';
import type { ApprovalMemory, RememberFor } from './approval-memory.js';

/**
 * A tool call an `intercept_tool_call` handler asked a person about (`ask`), as a host's approver
 * is given it (docs/hosts.md, Asking a person).
 */
export interface ApprovalRequest {
  toolName: string;
  /**
   * The arguments the tool would run with: after every rewrite of the chain, before the
   * framework's protected-ground sandbox (which only takes reach away: docs/trust.md).
   */
  toolArgs: Record<string, unknown>;
  toolCallId: string;
  /** Why approval is needed: the ask's reason. */
  message: string;
  /** The extension that asked. */
  askedBy: string;
  sessionId: string;
  turnId: string;
  taskId: string;
  /**
   * What the asking handler allows the answer to be remembered for; absent, an answer of
   * `session` or `always` is taken as `once`.
   */
  remember?: RememberScope;
}

/**
 * An approver's answer: `true` or `'once'` runs the call, `false` or `'deny'` declines it;
 * `'session'` and `'always'` (or `{ allow: true, remember }`) run it and remember the approval
 * for what the request's `remember` names, for the session or for the project.
 */
export type ApproverAnswer =
  | boolean
  | 'once'
  | RememberFor
  | 'deny'
  | { allow: boolean; remember?: RememberFor };

/**
 * Decides an ask (`ApproverAnswer`). Throwing or rejecting declines it;
 * an approver that stops waiting for the person throws a `TimeoutError` (the reason of
 * `AbortSignal.timeout` is one), which observers are told as a timeout.
 */
export type Approver = (request: ApprovalRequest) => ApproverAnswer | Promise<ApproverAnswer>;

/** What became of an ask: who asked and why, and whether the call was approved. */
export interface ToolApproval {
  /** The ask's message. */
  asked: string;
  askedBy: string;
  approved: boolean;
  /**
   * Why nobody approved, when no person said no: `no approver configured`, or the approver's
   * failure (`the approver failed: …`).
   */
  failure?: string;
  /** Nobody answered in time: the approver threw a `TimeoutError`. */
  timedOut?: true;
  /** Approved without asking: an earlier answer remembered for the session or the project. */
  remembered?: RememberFor;
  /** The person's answer is remembered for the session or the project. */
  rememberFor?: RememberFor;
  /** The remembered approvals could not be read or written (the person was asked all the same). */
  memoryFailure?: string;
}

/**
 * Asks the approver, failing closed: no approver, or one that throws or rejects, is a denial
 * that says why.
 */
export async function decideApproval(
  approve: Approver | undefined,
  request: ApprovalRequest,
  memory?: ApprovalMemory,
): Promise<ToolApproval> {
  let asked: { asked: string; askedBy: string; memoryFailure?: string } = {
    asked: request.message,
    askedBy: request.askedBy,
  };
  const grant = memory === undefined ? undefined : grantOf(request);
  // Before memory is consulted: a revoke from then on wins over this ask's answer.
  const askedAt = new Date();
  if (memory !== undefined && grant !== undefined) {
    try {
      const call = { extension: request.askedBy, tool: request.toolName, args: request.toolArgs };
      const remembered = memory.covers(request.sessionId, call);
      if (remembered !== undefined) return { ...asked, approved: true, remembered };
    } catch (error) {
      // Fails closed: a store that cannot be read allows nothing; the person is asked.
      asked = { ...asked, memoryFailure: (error as Error).message };
    }
  }
  if (approve === undefined)
    return { ...asked, approved: false, failure: 'no approver configured' };
  try {
    const { allow, remember } = readAnswer(await approve(request));
    if (!allow || remember === undefined || grant === undefined || memory === undefined) {
      return { ...asked, approved: allow };
    }
    try {
      await memory.remember(request.sessionId, grant, remember, askedAt);
      return { ...asked, approved: true, rememberFor: remember };
    } catch (error) {
      return { ...asked, approved: true, memoryFailure: (error as Error).message };
    }
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    const failure = `the approver failed: ${reason}`;
    return isTimeout(error)
      ? { ...asked, approved: false, failure, timedOut: true }
      : { ...asked, approved: false, failure };
  }
}

/**
 * The grant an ask may be remembered as: the handler's scope, and only when it covers the
 * arguments that will run (after the chain's rewrites), so the model cannot widen it.
 */
function grantOf(request: ApprovalRequest): ApprovalGrant | undefined {
  if (request.remember === undefined) return undefined;
  const grant = {
    extension: request.askedBy,
    tool: request.toolName,
    args: { ...request.remember.args },
  };
  const call = { extension: request.askedBy, tool: request.toolName, args: request.toolArgs };
  return grantCovers(grant, call) ? grant : undefined;
}

/** An approver's answer, read strictly: anything but an approval declines. */
function readAnswer(answer: ApproverAnswer): { allow: boolean; remember?: RememberFor } {
  if (answer === true || answer === 'once') return { allow: true };
  if (answer === 'session' || answer === 'always') return { allow: true, remember: answer };
  if (typeof answer === 'object' && answer !== null && answer.allow === true) {
    const { remember } = answer;
    return remember === 'session' || remember === 'always'
      ? { allow: true, remember }
      : { allow: true };
  }
  return { allow: false };
}

/** `TimeoutError`: what `AbortSignal.timeout` rejects with, and the usual name for giving up. */
function isTimeout(error: unknown): boolean {
  return error instanceof Error && error.name === 'TimeoutError';
}

/** What observers are told of an approver's decision (`post_approval_response`). */
export function answerOf(approval: ToolApproval, approver: Approver | undefined): ApprovalAnswer {
  if (approval.remembered !== undefined) {
    return { choice: approval.remembered, answeredVia: 'remembered' };
  }
  const answeredVia = approver === undefined ? 'none' : 'approver';
  if (approval.approved) return { choice: approval.rememberFor ?? 'once', answeredVia };
  if (approval.failure === undefined) return { choice: 'deny', answeredVia };
  return {
    choice: approval.timedOut ? 'timeout' : 'unanswered',
    answeredVia,
    failure: approval.failure,
  };
}

/** The approval request of an ask, for the call as it would run. */
export function approvalRequest(
  ask: ApprovalAsk,
  call: { toolName: string; toolArgs: Record<string, unknown>; toolCallId: string },
  ids: { sessionId: string; turnId: string; taskId: string },
): ApprovalRequest {
  const remember = ask.remember === undefined ? {} : { remember: ask.remember };
  // The arguments before the framework's sandbox wrapped them, when it did (ApprovalAsk.toolArgs).
  const toolArgs = ask.toolArgs ?? call.toolArgs;
  return { ...call, toolArgs, message: ask.message, askedBy: ask.askedBy, ...remember, ...ids };
}

/**
 * The tool result the model gets for a call that was not approved, shaped like a blocked call's
 * (`blockedToolResult`): the error names who asked, why, and what became of the ask.
 */
export function declinedToolResult(approval: ToolApproval): {
  error: string;
  blocked_by_extension: true;
  extension: string;
  /** `declined`: a person said no; `unanswered`: nobody could (no approver, or it failed). */
  approval: 'declined' | 'unanswered';
} {
  const why = approval.failure ?? 'the person declined';
  return {
    error: `needs approval: ${approval.asked} (asked by ${approval.askedBy}); ${why}`,
    blocked_by_extension: true,
    extension: approval.askedBy,
    approval: approval.failure === undefined ? 'declined' : 'unanswered',
  };
}
