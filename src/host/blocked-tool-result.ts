import type { ChainOutcome } from '../chain/outcome.js';

/**
 * The tool result a host gives the model in place of a blocked call (README, A host):
 * `{"error":"…","blocked_by_extension":true,"extension":"…"}`.
 */
export function blockedToolResult(outcome: ChainOutcome<unknown>): string {
  return JSON.stringify({
    error: outcome.message ?? 'Blocked by an extension.',
    blocked_by_extension: true,
    extension: outcome.blockedBy,
  });
}
