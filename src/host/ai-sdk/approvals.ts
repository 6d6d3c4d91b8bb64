/** The call a wrapped tool is about to run, as the SDK gives it. */
export interface SdkToolCall {
  toolCallId: string;
  toolName: string;
  input: unknown;
}

/**
 * Whether the SDK messages carry a person's yes for this very call: the last message answers
 * (`tool-approval-response`, `approved: true`) a `tool-approval-request` naming the call's id, and
 * the call of that id in the history has this name and this input. Only the last message counts,
 * as in the SDK's own reading: a yes from an earlier exchange has been used, and a later call that
 * reuses the id (or whose input differs) is a call nobody approved. The SDK itself checks that
 * every response answers a request of the history (and its signature, when the caller set
 * `experimental_toolApprovalSecret`) before it runs an approved call.
 */
export function approvedInMessages(messages: unknown, call: SdkToolCall): boolean {
  if (!Array.isArray(messages)) return false;
  const last = partsOf(messages.slice(-1), 'tool');
  const answered = new Set(
    last
      .filter((part) => part.type === 'tool-approval-response' && part.approved === true)
      .map((part) => String(part.approvalId)),
  );
  if (answered.size === 0) return false;
  const history = partsOf(messages, 'assistant');
  const asked = history.some(
    (part) =>
      part.type === 'tool-approval-request' &&
      part.toolCallId === call.toolCallId &&
      answered.has(String(part.approvalId)),
  );
  // The SDK runs the last call of the id: the one that must match.
  const approvedCall = history.findLast(
    (part) => part.type === 'tool-call' && part.toolCallId === call.toolCallId,
  );
  return (
    asked && approvedCall?.toolName === call.toolName && sameData(approvedCall.input, call.input)
  );
}

type Part = Record<string, unknown>;

function partsOf(messages: readonly unknown[], role: string): Part[] {
  return messages.flatMap((message) => {
    if (message === null || typeof message !== 'object') return [];
    const { role: messageRole, content } = message as { role?: unknown; content?: unknown };
    if (messageRole !== role || !Array.isArray(content)) return [];
    return content.filter((part): part is Part => part !== null && typeof part === 'object');
  });
}

/** JSON data equality, whatever the key order (the SDK's validated input may reorder keys). */
function sameData(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const aKeys = Object.keys(a);
  const bRecord = b as Record<string, unknown>;
  if (aKeys.length !== Object.keys(b).length) return false;
  return aKeys.every(
    (key) =>
      Object.hasOwn(bRecord, key) && sameData((a as Record<string, unknown>)[key], bRecord[key]),
  );
}
