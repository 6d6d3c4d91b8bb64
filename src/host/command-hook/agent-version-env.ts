import type { Version } from './agent-version.js';

/**
 * The Claude Code version in its hooks' environment: `AI_AGENT=claude-code_2-1-330_harness`
 * (dashes between the numbers). Undefined when the variable is missing or says another thing.
 */
export function claudeCodeVersionOf(aiAgent: string | undefined): Version | undefined {
  const found =
    aiAgent === undefined ? null : /^claude-code_(\d+)-(\d+)-(\d+)(?:_|$)/.exec(aiAgent);
  return found === null ? undefined : [Number(found[1]), Number(found[2]), Number(found[3])];
}
