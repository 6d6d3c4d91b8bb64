/**
 * What the router keeps of a turn, in its slot of the per-turn state (JSON data: command hooks
 * keep the state between their processes).
 */
export interface RouterState {
  /** A call showed the routing file's text in this turn. */
  routingRead: boolean;
  /** Calls that would read the routing file, by id, whose outcome has not been reported yet. */
  pending: string[];
  /** Why the last of them did not count, for the next refusal. */
  missed?: string;
}

/** A call's outcome as a host reports it: post_tool_call's `status`, `result`, `error_message`. */
export type ReportedCall = Readonly<Record<string, unknown>>;

export const freshState = (): RouterState => ({ routingRead: false, pending: [] });

/**
 * Why a reported call did not show the routing file (a sentence for the next refusal), or
 * undefined when it did: it ran (`status` ok) and what it printed holds a line of the file as it
 * is now (its text, trimmed, not blank). A host that reports no result (`result` missing or not
 * text) shows nothing: not counted.
 */
export function missedRead(
  payload: ReportedCall,
  file: string,
  routingText: string,
): string | undefined {
  const didNotCount = (why: string) => `The read of ${file} in this turn did not count: ${why}.`;
  const status = payload.status;
  if (status !== 'ok') {
    const error = typeof payload.error_message === 'string' ? ` (${payload.error_message})` : '';
    return didNotCount(
      `it ended ${typeof status === 'string' ? status : 'with no status'}${error}`,
    );
  }
  const result = payload.result;
  if (typeof result !== 'string') return didNotCount('the host did not report what it printed');
  const lines = routingText
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '');
  if (lines.length === 0) {
    return `${file} is empty: no read of it counts until it says which folder holds which module.`;
  }
  return lines.some((line) => result.includes(line))
    ? undefined
    : didNotCount('what it printed does not show the file');
}
