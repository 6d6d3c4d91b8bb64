import { homedir } from 'node:os';
import { resolve } from 'node:path';

type Env = Readonly<Record<string, string | undefined>>;

/**
 * A folder an environment variable names, as the framework reads one: `~` is the home, a relative
 * path starts from the working folder. Undefined when the variable is unset or empty: the agents
 * read an empty one as unset too (Claude Code's `CLAUDE_CONFIG_DIR || ~/.claude`).
 */
export function namedFolder(given: string | undefined): string | undefined {
  if (given === undefined || given === '') return undefined;
  if (given === '~' || given.startsWith('~/')) return homedir() + given.slice(1);
  return resolve(given);
}

/**
 * Claude Code's config folder as `env` names it (`$CLAUDE_CONFIG_DIR`): its settings and its
 * `.claude.json` are there. Undefined: the defaults, `~/.claude` and `~/.claude.json`.
 */
export const claudeConfigDir = (env: Env = process.env): string | undefined =>
  namedFolder(env.CLAUDE_CONFIG_DIR);

/** Codex's home as `env` names it (`$CODEX_HOME`), its hooks and config. Undefined: `~/.codex`. */
export const codexHome = (env: Env = process.env): string | undefined =>
  namedFolder(env.CODEX_HOME);

/**
 * The user's config home as `env` names it (`$XDG_CONFIG_HOME`): OpenCode's plugins and some MCP
 * clients' configs are under it. Undefined: `~/.config`.
 */
export const configHome = (env: Env = process.env): string | undefined =>
  namedFolder(env.XDG_CONFIG_HOME);
