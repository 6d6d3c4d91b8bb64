import { readFileSync } from 'node:fs';
import { join } from 'node:path';
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
 * Codex names no version in its hooks' events or environment, but when npm installed it (the
 * `@openai/codex` package, as `npm i -g @openai/codex` does) it gives them
 * `CODEX_MANAGED_PACKAGE_ROOT`, the package's folder: the version is its package.json's (checked
 * on 0.169.0). A Codex installed otherwise tells nothing, and neither does a package.json that is
 * missing, unreadable, of another package, or whose version is not a plain `X.Y.Z` (a prerelease
 * is not taken for the release it precedes).
 */
export function agentVersionFromEnv(
  agent: Pick<CommandHookAgent, 'name'>,
  env: Readonly<Record<string, string | undefined>> = process.env,
): Version | undefined {
  if (agent.name === 'codex') return codexPackageVersion(env.CODEX_MANAGED_PACKAGE_ROOT);
  // Another agent run under Claude Code inherits its AI_AGENT: that is not this agent's version.
  if (agent.name !== 'claude-code') return undefined;
  const value = env.AI_AGENT;
  if (value === undefined) return undefined;
  for (const shape of CLAUDE_CODE_AI_AGENT) {
    const found = shape.exec(value);
    if (found !== null) return [Number(found[1]), Number(found[2]), Number(found[3])];
  }
  return undefined;
}

/** The version in the package.json of the Codex npm package at `root`, if it is that. */
function codexPackageVersion(root: string | undefined): Version | undefined {
  if (root === undefined || root === '') return undefined;
  let manifest: unknown;
  try {
    manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  } catch {
    return undefined;
  }
  if (manifest === null || typeof manifest !== 'object') return undefined;
  const { name, version } = manifest as Record<string, unknown>;
  if (name !== '@openai/codex' || typeof version !== 'string') return undefined;
  const found = /^(\d{1,6})\.(\d{1,6})\.(\d{1,6})$/.exec(version);
  return found === null ? undefined : [Number(found[1]), Number(found[2]), Number(found[3])];
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
  // Not known: 0.169.0 tells (installed from npm); older versions were not checked.
  codex: [0, 169, 0],
};
