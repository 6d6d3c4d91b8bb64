import type { ChainOutcome } from '../chain/outcome.js';

type Blocked = Extract<ChainOutcome<unknown>, { blocked: true }>;

/**
 * The tool result a host gives the model in place of a blocked call (docs/hosts.md):
 * `{"error":"…","blocked_by_extension":true,"extension":"…"}`.
 */
export function blockedToolResult(outcome: Blocked): string {
  return JSON.stringify(blockedToolError(outcome));
}

/** The same result as an object, for hosts whose tools return values (the AI SDK). */
export function blockedToolError(outcome: Blocked): {
  error: string;
  blocked_by_extension: true;
  extension: string;
} {
  return { error: outcome.message, blocked_by_extension: true, extension: outcome.blockedBy };
}
