import type { HookAnswer, WireAnswer } from '../wire.js';

/**
 * The answer in the hook protocol Claude Code defined (and Codex took over): the JSON object on
 * stdout, exit 0 (exit 2 and its stderr would be a block these agents read their own way, and
 * any other exit a failed hook, which both let a tool call through).
 */
export function writeHookJson(answer: WireAnswer): HookAnswer {
  return {
    exitCode: 0,
    ...(answer.output === undefined ? {} : { stdout: JSON.stringify(answer.output) }),
    ...(answer.stderr === undefined ? {} : { stderr: answer.stderr }),
  };
}
