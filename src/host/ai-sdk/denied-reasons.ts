import type { LanguageModelV3Prompt } from '@ai-sdk/provider';
import type { PendingApproval } from '../../observe/approval-events.js';
import type { ApprovalRequest } from '../approval.js';

/**
 * Why each call waiting for the SDK's tool approval was asked about, by session and tool call id.
 * A person's "no" comes back in a later `generateText` (often a later turn, with new wrapped
 * tools), where the SDK writes the call's result itself — `execution-denied` with only the
 * person's own `reason` — and never asks the tools. The wrapped model puts the guard's reason
 * back in that result, from here, so the model learns what was asked and by whom, as the
 * in-process approver's declined result says (declinedToolResult in ../approval.ts). Kept for
 * the process's life, the oldest forgotten past MAX_ASKS. Each ask also keeps, until its answer
 * is seen, what `post_approval_response` needs (`pending`, when someone observes it): a yes shows
 * in the wrapped tool's `execute`, a no only here.
 */
interface RememberedAsk {
  request: ApprovalRequest;
  pending: PendingApproval | undefined;
}
const asks = new Map<string, RememberedAsk>();
const MAX_ASKS = 1024;

const keyOf = (sessionId: string, toolCallId: string) => `${sessionId}\u0000${toolCallId}`;

export function rememberAsk(request: ApprovalRequest, pending?: PendingApproval): void {
  const key = keyOf(request.sessionId, request.toolCallId);
  asks.delete(key);
  asks.set(key, { request, pending });
  if (asks.size > MAX_ASKS) asks.delete(asks.keys().next().value as string);
}

/** The approval still waiting for its answer on this call, taken: an answer is told once. */
export function takePendingApproval(
  sessionId: string,
  toolCallId: string,
): PendingApproval | undefined {
  const remembered = asks.get(keyOf(sessionId, toolCallId));
  const pending = remembered?.pending;
  if (remembered !== undefined) remembered.pending = undefined;
  return pending;
}

/**
 * The denied calls' results with the guard's reason in them; the prompt as it was otherwise.
 * `onDenied` hears of each denial whose answer nobody was told yet, with the person's reason.
 */
export function withDeniedReasons(
  prompt: LanguageModelV3Prompt,
  sessionId: string,
  onDenied?: (pending: PendingApproval, reason: string | undefined) => void,
): LanguageModelV3Prompt {
  let changed = false;
  const out = prompt.map((message) => {
    if (message.role !== 'tool') return message;
    const content = message.content.map((part) => {
      if (part.type !== 'tool-result' || part.output.type !== 'execution-denied') return part;
      const remembered = asks.get(keyOf(sessionId, part.toolCallId));
      if (remembered?.pending !== undefined && onDenied !== undefined) {
        const pending = remembered.pending;
        remembered.pending = undefined;
        onDenied(pending, part.output.reason);
      }
      const ask = remembered?.request;
      if (ask === undefined || part.output.reason?.startsWith(NEEDS_APPROVAL)) return part;
      changed = true;
      const own = part.output.reason;
      return {
        ...part,
        output: {
          ...part.output,
          reason: `${NEEDS_APPROVAL}${ask.message} (asked by ${ask.askedBy}); the person declined${own ? `: ${own}` : ''}`,
        },
      };
    });
    return { ...message, content };
  });
  return changed ? out : prompt;
}

const NEEDS_APPROVAL = 'needs approval: ';
