import type { CommandHookAgent } from './agent.js';
import { antigravity } from './agents/antigravity.js';
import { claudeCode } from './agents/claude-code.js';
import { codex } from './agents/codex.js';
import { cursor } from './agents/cursor.js';
import { hermesAgent } from './agents/hermes-agent.js';
import { opencode } from './agents/opencode.js';

export type { CommandHookAgent } from './agent.js';
export { claudeCode } from './agents/claude-code.js';
export { codex } from './agents/codex.js';
export { hermesAgent } from './agents/hermes-agent.js';
export { opencode } from './agents/opencode.js';

/** The agents `hermes hook <agent>` answers, by the name the command takes (agents/ declares each). */
export const COMMAND_HOOK_AGENTS: Readonly<Record<string, CommandHookAgent>> = {
  'claude-code': claudeCode,
  codex,
  'hermes-agent': hermesAgent,
  cursor,
  antigravity,
  opencode,
};
