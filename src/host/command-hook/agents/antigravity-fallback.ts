import { shJson } from './cursor-fallback.js';

/**
 * The answer the installed command prints in Antigravity's wire when hermes cannot run
 * (hook-wrapper.ts): a `deny` with what went wrong. Antigravity sends no event name, and the
 * hook is installed for `PreToolUse` only (agents/antigravity.ts), so every event is a tool
 * call. A line of that program: no quote or backslash.
 */
export const ANTIGRAVITY_FALLBACK = `printf %s ${shJson({
  decision: 'deny',
  reason: 'Hermes could not check this call, so it is refused: @REASON@',
})}`;
