import type { Version } from './agent-version.js';
import type { CommandHookAgent } from './agents.js';

/**
 * The version of the agent that started this hook process, as its environment tells it, or
 * undefined when it does not (an older agent, an agent that sets nothing, a value in another
 * shape): then nothing is assumed, and a caller that needs the version must fail closed.
 *
 * Claude Code sets `AI_AGENT` for its hooks (and every other child process) to its own name and
 * version: `claude-code/2.1.120/harness` in the versions that started setting it, and
 * `claude-code_2-1-200_harness` later (`_agent` instead of `_harness` in a shell the model runs).
 * Versions before 2.1.120 set no such variable; an `AI_AGENT` that names another program
 * (Claude Code keeps one it did not set, when it is run by another agent) is not Claude Code's
 * version. The command line's `claude --version` is no substitute here: the program on the PATH
 * need not be the one that runs this session.
 *
 * Codex gives its hooks no version, neither in their environment (`CODEX_HOME` and, when npm
 * installed it, `CODEX_MANAGED_BY_NPM` and `CODEX_MANAGED_PACKAGE_ROOT`) nor in the event
 * (checked on 0.169.0), so for it this is always undefined.
 */
export function agentVersionFromEnv(
  agent: Pick<CommandHookAgent, 'name'>,
  env: Readonly<Record<string, string | undefined>> = process.env,
): Version | undefined {
  if (agent.name !== 'claude-code') return undefined;
  const value = env.AI_AGENT;
  if (value === undefined) return undefined;
  for (const shape of CLAUDE_CODE_AI_AGENT) {
    const found = shape.exec(value);
    if (found !== null) return [Number(found[1]), Number(found[2]), Number(found[3])];
  }
  return undefined;
}

/** `claude-code/2.1.120/harness` and `claude-code_2-1-200_harness`, nothing before or after. */
const CLAUDE_CODE_AI_AGENT = [
  /^claude-code\/(\d{1,6})\.(\d{1,6})\.(\d{1,6})\/[a-z]+$/,
  /^claude-code_(\d{1,6})-(\d{1,6})-(\d{1,6})_[a-z]+$/,
];

/**
 * The first version of each agent whose hooks find its version in their environment (Claude Code
 * 2.1.119 sets no `AI_AGENT`, 2.1.120 does). Under an older one the hook cannot tell the version,
 * so nothing that needs it is assumed; undefined: no version of that agent tells.
 */
export const VERSION_IN_HOOK_ENV_SINCE: Readonly<
  Record<CommandHookAgent['name'], Version | undefined>
> = {
  'claude-code': [2, 1, 120],
  codex: undefined,
};
