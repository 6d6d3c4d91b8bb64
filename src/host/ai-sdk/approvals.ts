/**
 * Whether the SDK messages carry a person's yes for this tool call: a `tool-approval-response`
 * with `approved: true` whose `tool-approval-request` names the call. The SDK itself checks that
 * every response answers a request of the history (and its signature, when the caller set
 * `experimental_toolApprovalSecret`) before it runs an approved call.
 */
export function approvedInMessages(messages: unknown, toolCallId: string): boolean {
  if (!Array.isArray(messages)) return false;
  const requests = new Set<string>();
  for (const part of partsOf(messages, 'assistant')) {
    if (part.type === 'tool-approval-request' && part.toolCallId === toolCallId)
      requests.add(String(part.approvalId));
  }
  if (requests.size === 0) return false;
  return partsOf(messages, 'tool').some(
    (part) =>
      part.type === 'tool-approval-response' &&
      part.approved === true &&
      requests.has(String(part.approvalId)),
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
