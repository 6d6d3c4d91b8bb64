import { homedir } from 'node:os';
import type { PathBase } from '../project-paths.js';
import { type ProtectedGround, type ProtectedHit, protectedHit } from './ground.js';
import { MCP_CONFIG_NAME } from './mcp-configs.js';

/**
 * Words that name protected ground whatever folder they are read from, and the variables that
 * hold a part of it: a program (`python3 -c`, `node -e`, `git`, `cp`) whose writes the shell
 * analysis cannot list is refused when its text says one of them.
 */
const NAMES: ReadonlyArray<readonly [RegExp, string]> = [
  [/(?:^|\/)\.hermes(?:\/|$)/, 'a hermes config folder (.hermes)'],
  [/(?:^|\/)(?:\.hermesrc(?:\.json|\.ya?ml)?|hermes\.config\.[cm]?[jt]s)$/, 'a hermes config file'],
  [/(?:^|\/)\.claude\/settings(?:\.local)?\.json$/, "Claude Code's hook settings"],
  [/(?:^|\/)\.codex(?:\/|$)/, "Codex's hooks and config"],
  [/(?:^|\/)\.cursor\/hooks\.json$/, "Cursor's hooks"],
  [/(?:^|\/)(?:\.opencode|opencode)\/plugins?(?:\/|$)/, "OpenCode's plugins"],
  [/(?:^|\/)(?:\.agents|\.gemini\/config)\/plugins(?:\/|$)/, "Antigravity's hook plugins"],
  [/(?:^|\/)hermes-daemon-\d+(?:\/|$)/, "the hook daemon's sockets"],
  [MCP_CONFIG_NAME, "an MCP client's config (the servers it starts)"],
  // A home's start-up files as a program joins them to a home it reads (`HOME + '/.profile'`):
  // a project's own `.bashrc` (a dotfiles repository's) is not protected ground, nor named here.
  [
    /^\/\.(?:bash_profile|bash_login|profile|bashrc|bash_logout|zshenv|zprofile|zshrc|zlogin|zlogout)$/,
    "a login shell's start-up file",
  ],
  [
    /^\/\.(?:config|local\/share)\/fish\/(?:config\.fish|conf\.d|functions|fish_variables|vendor_\w+\.d)(?:\/|$)/,
    "fish's start-up config",
  ],
];
const VARIABLES =
  /\b(?:HERMES_HOME|HERMES_DAEMON_DIR|CLAUDE_CONFIG_DIR|CODEX_HOME|XDG_CONFIG_HOME|XDG_DATA_HOME|ZDOTDIR|BASH_ENV)\b/;

/**
 * A file of workflow-guard's sandbox, named by the digest of its content: a settings file
 * (sandbox/settings.ts), a seccomp filter (sandbox/unix-block.ts); or the lock its own bubblewrap
 * line takes while it holds names that do not exist yet (sandbox/bwrap-line.ts).
 */
const SANDBOX_SETTINGS =
  /^(?:srt-[0-9a-f]{32}\.json|unix-block-[a-z0-9]+-[0-9a-f]{16}\.bpf|mount-points\.lock)$/;

/** Words end at white space, quotes, the shell's operators and the punctuation of code. */
const SEPARATORS = /[\s'"`;|&()<>{}[\],=:+\\]+/;
/** Variables a word may start with, as the shell (or a program's own expansion) would read them. */
const LEADING_HOME = /^(?:\$HOME|\$\{HOME\})(?=\/|$)/;

/**
 * The first word of `text` that names protected ground: by a name that is protected wherever it
 * is (`.hermes`, `.claude/settings.json`), by a variable that holds a part of it (`$HERMES_HOME`),
 * or as a path that resolves there from `from` (absolute, `~`, `$HOME`, `..`, links followed).
 * This reads words, not code: a program that assembles a name at run time (`'.her' + 'mes'`) is
 * not seen (docs/trust.md, Protected ground).
 */
export function mentionedGround(
  ground: ProtectedGround,
  text: string,
  from: string | PathBase | undefined,
): ProtectedHit | undefined {
  const variable = VARIABLES.exec(text);
  if (variable !== null) {
    return { given: `$${variable[0]}`, what: 'a variable that names protected ground' };
  }
  const settings = `${ground.hermesHome}/sandbox/`;
  for (const word of text.split(SEPARATORS)) {
    if (word === '') continue;
    // The settings of the framework's own sandbox (a wrapper the agent sends back as it was
    // made): the command reads them, and the sandbox keeps them read-only.
    if (word.startsWith(settings) && SANDBOX_SETTINGS.test(word.slice(settings.length))) continue;
    const named = NAMES.find(([pattern]) => pattern.test(word));
    if (named !== undefined) return { given: word, what: named[1] };
    if (!mayBePath(word)) continue;
    const path = word.replace(LEADING_HOME, homedir());
    const hit = protectedHit(ground, path, from);
    if (hit !== undefined) return { given: word, what: hit.what };
  }
  return undefined;
}

/** Only words that could be a path are resolved: each costs a look at the disk. */
function mayBePath(word: string): boolean {
  const first = word.charCodeAt(0);
  return (
    word.includes('/') || first === 46 /* . */ || first === 126 /* ~ */ || LEADING_HOME.test(word)
  );
}
