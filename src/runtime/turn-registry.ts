/**
 * Turns in progress across every runtime of this process, for `getTurnState(sessionId)`,
 * which extension code can call without holding a runtime (docs/chain-semantics.md, An extension).
 */
const activeStates = new Map<string, Record<string, unknown>>();

export function publishTurnState(sessionId: string, state: Record<string, unknown>): void {
  activeStates.set(sessionId, state);
}

export function withdrawTurnState(sessionId: string, state: Record<string, unknown>): void {
  // Only if it is still ours: another runtime may have opened a turn for this session since.
  if (activeStates.get(sessionId) === state) activeStates.delete(sessionId);
}

/** The state of the session's turn in progress, or undefined when it has none. */
export function getTurnState(sessionId: string): Record<string, unknown> | undefined {
  return activeStates.get(sessionId);
}
