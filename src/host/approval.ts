import type { ApprovalAsk } from '../chain/outcome.js';
import type { ApprovalAnswer } from '../observe/approval-events.js';

/**
 * A tool call an `intercept_tool_call` handler asked a person about (`ask`), as a host's approver
 * is given it (docs/hosts.md, Asking a person).
 */
export interface ApprovalRequest {
  toolName: string;
  /** The arguments the tool would run with: after every rewrite of the chain. */
  toolArgs: Record<string, unknown>;
  toolCallId: string;
  /** Why approval is needed: the ask's reason. */
  message: string;
  /** The extension that asked. */
  askedBy: string;
  sessionId: string;
  turnId: string;
  taskId: string;
}

/**
 * Decides an ask: `true` runs the call, `false` declines it. Throwing or rejecting declines it;
 * an approver that stops waiting for the person throws a `TimeoutError` (the reason of
 * `AbortSignal.timeout` is one), which observers are told as a timeout.
 */
export type Approver = (request: ApprovalRequest) => boolean | Promise<boolean>;

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
}

/**
 * Asks the approver, failing closed: no approver, or one that throws or rejects, is a denial
 * that says why.
 */
export async function decideApproval(
  approve: Approver | undefined,
  request: ApprovalRequest,
): Promise<ToolApproval> {
  const asked = { asked: request.message, askedBy: request.askedBy };
  if (approve === undefined)
    return { ...asked, approved: false, failure: 'no approver configured' };
  try {
    return { ...asked, approved: (await approve(request)) === true };
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    const failure = `the approver failed: ${reason}`;
    return isTimeout(error)
      ? { ...asked, approved: false, failure, timedOut: true }
      : { ...asked, approved: false, failure };
  }
}

/** `TimeoutError`: what `AbortSignal.timeout` rejects with, and the usual name for giving up. */
function isTimeout(error: unknown): boolean {
  return error instanceof Error && error.name === 'TimeoutError';
}

/** What observers are told of an approver's decision (`post_approval_response`). */
export function answerOf(approval: ToolApproval, approver: Approver | undefined): ApprovalAnswer {
  const answeredVia = approver === undefined ? 'none' : 'approver';
  if (approval.approved) return { choice: 'once', answeredVia };
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
  return { ...call, message: ask.message, askedBy: ask.askedBy, ...ids };
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
