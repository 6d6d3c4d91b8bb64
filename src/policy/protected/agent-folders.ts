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
 * The variables, other than `$HERMES_HOME` and the daemon's folder, that place user folders on
 * protected ground (ground.ts, shell-startup.ts): the hook in the user's settings carries each the
 * user set as install found it (command-hook/hook-wrapper.ts, PINS), and each keys the daemon
 * (daemon/protocol.ts, DAEMON_ENV), as protected ground is made once per runtime.
 */
export const USER_FOLDER_VARIABLES = [
  'CLAUDE_CONFIG_DIR',
  'CODEX_HOME',
  'XDG_CONFIG_HOME',
  'XDG_DATA_HOME',
  'ZDOTDIR',
  'BASH_ENV',
] as const;

/** Each of USER_FOLDER_VARIABLES as `env` names it; undefined where unset or empty (the default). */
export function userFolders(
  env: Env = process.env,
): Record<(typeof USER_FOLDER_VARIABLES)[number], string | undefined> {
  const folders = {} as Record<(typeof USER_FOLDER_VARIABLES)[number], string | undefined>;
  for (const name of USER_FOLDER_VARIABLES) folders[name] = namedFolder(env[name]);
  return folders;
}
