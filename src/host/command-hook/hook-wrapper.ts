import { parse } from 'shell-quote';
import { USER_FOLDER_VARIABLES } from '../../policy/protected/agent-folders.js';
import { ANTIGRAVITY_FALLBACK } from './agents/antigravity-fallback.js';
import { CURSOR_FALLBACK } from './agents/cursor-fallback.js';
import { HERMES_AGENT_FALLBACK, HERMES_AGENT_PASSED } from './agents/hermes-agent-fallback.js';
import { HELD_EVENT, PERL_STEP } from './perl-step.js';

/**
 * The installed hook command fails closed when hermes cannot run.
 *
 * Claude Code and Codex run a hook that exits with anything but 0 or 2 — 127 when
 * `node_modules/.bin/hermes` is not there (a fresh clone before `npm install`), when the package
 * it links to moved, or when `node` is not on the PATH; 1 when Node cannot find the script — as
 * a non-blocking error, and run the tool call: a guard that never started would look like one
 * that said yes. So the command hermes installs is a small POSIX-sh program that runs hermes and,
 * when hermes did not answer (any exit but 0: the agents ignore the output of every other exit,
 * and 2 would be a block that at `Stop` keeps the agent looping), prints the agent's fail-closed
 * answer for the event itself, with exit 0:
 *
 * - `PreToolUse` (and an event whose name cannot be read, which may have been one): a
 *   `permissionDecision: "deny"` whose reason says what is missing and how to fix it, in the
 *   shape `failed` in answers.ts gives; were the event not a tool call after all, an answer
 *   for another event blocks nothing there;
 * - `UserPromptSubmit`: `decision: "block"` with that reason: every tool call would be refused
 *   anyway, and this shows the fix before the model spends a turn on refused calls;
 * - any other event (`PostToolUse`, `PostToolBatch`, `Stop`, `SessionEnd`): a `systemMessage`
 *   only: a block at `Stop` would keep the agent going, and the others have nothing to refuse.
 *
 * The program lives in the command line itself, not in a file: what it guards against is
 * missing files (a script in the project could be missing as well, and would fail open the same
 * way), and it must not need anything from `node_modules`. hermes reads the event from the
 * agent's stdin itself (no `cat` in between: a fork and an exec on every call); the program
 * captures hermes' stdout and prints it byte for byte when hermes exits 0 (half an answer from a
 * hermes that then died is never printed; hermes' stderr is never touched). Only when hermes
 * failed does the program read the event, what hermes left of it (`program` says when that is
 * trusted), with `tr` and a `case` pattern (no jq): the agents write compact JSON, and
 * whitespace is ignored anyway. A tool call's arguments may hold a `"hook_event_name"` key of their own, so
 * `PreToolUse` anywhere in the event wins; text inside a string has its quotes escaped and
 * never matches.
 *
 * Each agent runs a hook through a shell of its own choosing: Claude Code `sh -c`, Codex
 * `$SHELL -lc` (bash, zsh, fish…). So the command is `/bin/sh -c '<program>' hermes-hook <agent>
 * '"' [argv…]`: words and single-quoted strings without `'` or `\` (a `'` in a path becomes
 * `'\''`), which every one of those shells reads alike, and the program itself runs in /bin/sh
 * (dash or bash). The `"` the JSON
 * answers need comes in as an argument, since the program may hold neither quote nor backslash.
 * Without `argv` it runs the project's own `node_modules/.bin/hermes` (the project form, no path
 * of this machine); with it, that command (the user form: this Node and this package by path).
 * A path or message with a character that JSON would need escaped has it replaced by `?`.
 *
 * The environment the agent gives its hook is partly the project's: Claude Code passes the `env`
 * of a project's `.claude/settings.json` to every hook process, and the agent itself may set
 * what its later hooks inherit. So the program first unsets what would let that environment
 * weaken a guard or run the project's code inside hermes (UNSET), and the user form carries, as
 * its first words after the `"`, the user's `$HERMES_HOME` and the folder of the user's hook
 * daemon, both absolute (`HERMES_HOME=/…`, `HERMES_DAEMON_DIR=/…`, which it exports: PINS): a
 * project cannot move the user's extensions, config and trust store somewhere of its own, nor
 * point the hook at a daemon socket in a folder of its own (the agent runs as the user, so a
 * folder it made passes every check a socket folder gets, and a server it started there would
 * answer every call). So too Claude Code's and Codex's config folders, where the user set them
 * (`CLAUDE_CONFIG_DIR=/…`, `CODEX_HOME=/…`): the agent's hooks live there, on protected ground
 * as the hook's environment names them, and a project naming another folder would take the
 * user's own off it. The project form carries none (it is committed, and names no path of
 * this machine); it guards no further than the project that committed it is trusted
 * (docs/trust.md).
 */

/** The program's `$0`: it names the wrapper in the shell's own error messages. */
const NAME = 'hermes-hook';

/** Where the fallback answers put the reason; the program replaces it with `$m`. */
const REASON = '@REASON@';

/** The answers, as a double-quoted sh string that prints this JSON with the reason in it. */
function shJson(answer: Record<string, unknown>): string {
  // biome-ignore lint/suspicious/noTemplateCurlyInString: shell text
  return `"${JSON.stringify(answer).replaceAll('"', '${q}').replace(REASON, '$m')}"`;
}

const DENY = shJson({
  hookSpecificOutput: {
    hookEventName: 'PreToolUse',
    permissionDecision: 'deny',
    permissionDecisionReason: `Hermes could not check this call, so it is refused: ${REASON}`,
  },
});
const BLOCK_PROMPT = shJson({
  decision: 'block',
  reason: `Hermes could not check this prompt, so it is blocked: ${REASON}`,
});
const TELL = shJson({ systemMessage: `Hermes: ${REASON}` });

/**
 * What the program unsets before anything runs: `HERMES_TRUST_PROJECT` trusts the project for
 * the run (its code would load, and its config could switch the user's guards off); `NODE_OPTIONS`
 * (`--require`, `--import`) and `NODE_PATH` load modules of the project's choosing into hermes'
 * own Node; `NODE_COMPILE_CACHE` (Node 22.1 and later) has Node take the compiled code of hermes'
 * own files from a folder of the project's choosing, which V8 checks against the source's hash
 * and flags, not against what the code does (a repository could commit such a cache beside the
 * settings that name it). The other `HERMES_*` variables cannot weaken a guard:
 * `HERMES_HOOK_DEADLINE_MS` is held below the agents' hook timeout (hook-deadline.ts) and a chain
 * it cuts off is refused (src/chain/chain-deadline.ts), the daemon's other variables only say how
 * long it serves, and `HERMES_HOME` and `HERMES_DAEMON_DIR` are what the user form carries (PINS).
 * Perl's own are left be: the Perl hook client runs with -T and -C0 (perl-step.ts).
 */
export const UNSET = [
  'HERMES_TRUST_PROJECT',
  'NODE_OPTIONS',
  'NODE_PATH',
  'NODE_COMPILE_CACHE',
  'HERMES_NODE_EXTRA_CA_CERTS',
];

/** What each version unsets: 1 to 4 the first three names, 5 the first four, 6 all five. */
const unsetBy = (version: Version) => UNSET.slice(0, version >= 6 ? 5 : version >= 5 ? 4 : 3);

/**
 * Where version 6 moves `NODE_EXTRA_CA_CERTS` for hermes' own process, which makes no TLS
 * connection: Node parses that bundle as it starts (about 50 ms for a system's roots), and
 * bin/hermes.js puts it back before anything reads it (docs/command-hooks.md, "The certificates
 * a hook does not load"). UNSET clears the name first: only the agent's own value arrives there.
 */
export const MOVED_CA_CERTS = 'HERMES_NODE_EXTRA_CA_CERTS';
const MOVE_CA_CERTS = `case \${NODE_EXTRA_CA_CERTS+s} in s) export ${MOVED_CA_CERTS}="$NODE_EXTRA_CA_CERTS"; unset NODE_EXTRA_CA_CERTS;; esac`;

/**
 * What the user form carries, in this order, each as a word `NAME=/absolute/path` that the
 * program exports: the user's `$HERMES_HOME`, the folder of the user's hook daemon sockets
 * (policy/protected/daemon-folder.ts), and the other user folders protected ground is placed by
 * (policy/protected/agent-folders.ts): Claude Code's and Codex's config folders, the config and
 * data homes (OpenCode's plugins, VS Code's and Claude Desktop's MCP servers, fish's start-up
 * files), zsh's `$ZDOTDIR` and bash's `$BASH_ENV` (a login shell's start-up files,
 * shell-startup.ts), as the user's environment placed them at install. The first two are always
 * there; the others only where the user set them. One not carried keeps what the environment
 * says: protected ground holds the default whatever that is (policy/protected/ground.ts), so a
 * project's value there can add a protected place and hide none. Every agent's line carries them
 * all: each is protected ground under any agent.
 */
export const PINS = ['HERMES_HOME', 'HERMES_DAEMON_DIR', ...USER_FOLDER_VARIABLES] as const;

/** The PINS each version of the program reads (`Version`). */
const PINNED: Readonly<Record<Version, readonly (typeof PINS)[number][]>> = {
  0: [],
  1: ['HERMES_HOME'],
  2: ['HERMES_HOME', 'HERMES_DAEMON_DIR'],
  3: ['HERMES_HOME', 'HERMES_DAEMON_DIR'],
  4: PINS,
  5: PINS,
  6: PINS,
  7: PINS,
};

/** The user's values of PINS, absolute paths. */
export type Pins = { [name in (typeof PINS)[number]]?: string };

/**
 * The versions of the program: 0 read everything from the agent's environment; 1 unset UNSET and
 * took `$HERMES_HOME` from its first word, but the daemon's folder from the environment; 2 took
 * both from its words; 3 let hermes read the event itself (below); 4 takes the agents' config
 * folders from its words too (PINNED); 5 unsets `NODE_COMPILE_CACHE` as well (UNSET); 6 starts
 * hermes without `NODE_EXTRA_CA_CERTS`, moved aside (MOVED_CA_CERTS); 7 (the current one) asks a
 * warm daemon through the Perl hook client first, in the user form (perl-step.ts).
 */
type Version = 0 | 1 | 2 | 3 | 4 | 5 | 6 | 7;
const CURRENT: Version = 7;
const VERSIONS: readonly Version[] = [0, 1, 2, 3, 4, 5, 6, 7];

/**
 * How versions 0 to 2 handed hermes the event: buffered with `cat` first (a fork and an exec on
 * every call), so that the fallback could read its name whatever hermes did with it.
 */
const BUFFERED = [
  // `.` keeps the event's trailing newlines, which `$(...)` would drop.
  'e=$(cat; echo .)',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: shell text
  'e=${e%.}',
  'o=$(printf %s "$e" 2>/dev/null | "$@"; echo " $?")',
];

/** The line that takes `NAME=/…` off the front of the arguments and exports it (versions 1 to 3). */
const pinLine = (name: string) =>
  `case $1 in ${name}=/*) ${name}=\${1#${name}=}; export ${name}; shift;; esac`;

/**
 * The loop that takes every `NAME=/…` of PINS off the front of the arguments and exports it
 * (version 4): one line for all of them, shorter than a line each.
 */
const PIN_LOOP = `while case $1 in ${PINS.map((name) => `${name}=/*`).join('|')}) true;; *) false;; esac; do export "$1"; shift; done`;

/**
 * The program, up to the line that prints the fallback answer (`answers`, the agent's own). `$1`
 * the agent, `$2` a `"`, then (the user form) the PINS words and hermes' argv, or nothing (the
 * project form: the project's own). `$s` is hermes' exit code, `$m` what went wrong, `$k` the
 * start of `"hook_event_name":"`, `$n` the event without spaces. `version`: the program of an
 * earlier version, still known (Version).
 *
 * Since version 3 hermes reads the event from the agent itself, and the program reads what is
 * left of it (`$n`) only when hermes failed and the event may still be there whole (`$e` set):
 * hermes never started (a missing file, no node), or it ended by itself (an exit code below 128)
 * — hermes reads its stdin to the end before it does anything that can end it without an
 * answer, so then it read nothing or all. Killed by a signal (128 and above), it may have read
 * part of it, and what is left could spell another event's name (a tool call's arguments hold
 * what the model wrote): that is answered as an event whose name cannot be read.
 */
const program = (answers: string, passed?: string, version: Version = CURRENT) =>
  [
    'a=$1 q=$2',
    'shift 2',
    ...(version > 0 ? [`unset ${unsetBy(version).join(' ')}`] : []),
    ...(version >= 6 ? [MOVE_CA_CERTS] : []),
    ...(version === 1 ? [pinLine('HERMES_HOME')] : []),
    ...(version === 2 || version === 3 ? PINNED[version].map(pinLine) : []),
    ...(version >= 4 ? [PIN_LOOP] : []),
    'p=',
    ...(version < 3 ? [] : ['e=1']),
    // The project form: Claude Code names the project's root; Codex runs the hook in the session's
    // folder, below the repository's root, or outside a repository in the folder it read .codex/ in.
    'if [ $# = 0 ]; then p=1; case $a in claude-code) r=$CLAUDE_PROJECT_DIR;; *) r=$(git rev-parse --show-toplevel 2>/dev/null || pwd);; esac; set -- "$r/node_modules/.bin/hermes" hook "$a"; fi',
    ...(version < 3 ? BUFFERED : version < 7 ? ['o=$("$@"; echo " $?")'] : PERL_STEP),
    // biome-ignore lint/suspicious/noTemplateCurlyInString: shell text
    's=${o##* }',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: shell text
    'o=${o% *}',
    'if [ "$s" = 0 ]; then printf %s "$o"; exit 0; fi',
    ...(passed === undefined ? [] : [passed]),
    'if [ -n "$p" ] && [ ! -e "$1" ]; then m="$1 is missing: run npm install in $r (with hermes-extensions in its devDependencies), or take the hook out: npx hermes-extensions hook uninstall $a --project"',
    'elif [ -n "$p" ] && [ "$s" = 127 ] && ! command -v node >/dev/null 2>&1; then m="node is not on the PATH the hook runs with ($PATH): install Node.js, or put it on that PATH"',
    'elif [ -z "$p" ] && [ ! -e "$1" ]; then m="$1 is missing (Node.js moved or was removed): run hermes hook install $a again"',
    'elif [ -z "$p" ] && [ ! -e "$2" ]; then m="$2 is missing (hermes-extensions moved or was removed): install it again, then run hermes hook install $a"',
    `else m="hermes ended with exit code $s and no answer (its error output says why; hermes extensions doctor checks the setup)"${version < 3 ? '' : '; if [ "$s" -gt 127 ]; then e=; fi'}; fi`,
    // JSON-safe: a quote, a backslash (the range [ to ^ holds it) or a control character becomes ?.
    't=$m',
    'm=',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: shell text
    'while [ -n "$t" ]; do c=${t%"${t#?}"}; t=${t#?}; case $c in "$q"|[[-^]|[[:cntrl:]]) c=?;; esac; m=$m$c; done',
    'echo "hermes hook $a: $m" >&2',
    ...(version < 3
      ? ['n=$(printf %s "$e" | tr -d "[:space:]")']
      : ['n=$(tr -d "[:space:]")', 'if [ -z "$e" ]; then n=; fi']),
    ...(version >= 7 ? [HELD_EVENT] : []),
    // biome-ignore lint/suspicious/noTemplateCurlyInString: shell text
    'k=${q}hook_event_name${q}:${q}',
    answers,
    'exit 0',
  ].join('; ');

/** Claude Code's and Codex's fallback answers. */
const CLAUDE_FALLBACK = `case $n in *"$k"PreToolUse"$q"*) printf %s ${DENY};; *"$k"UserPromptSubmit"$q"*) printf %s ${BLOCK_PROMPT};; *"$k"*) printf %s ${TELL};; *) printf %s ${DENY};; esac`;

/**
 * Agents whose fallback answers are not Claude Code's: the same program, with the last line
 * printing the answer in the agent's own wire (agents/cursor-fallback.ts,
 * agents/antigravity-fallback.ts). Claude Code's answer would fail open there.
 */
const FALLBACKS: Readonly<Record<string, [string, string?]>> = {
  cursor: [CURSOR_FALLBACK],
  antigravity: [ANTIGRAVITY_FALLBACK],
  'hermes-agent': [HERMES_AGENT_FALLBACK, HERMES_AGENT_PASSED],
};

/** The program the command of `agent` runs (`version`: an earlier version's). */
export function hookProgram(agent: string): string {
  return programOf(agent);
}

function programOf(agent: string, version: Version = CURRENT): string {
  const [answers, passed] = Object.hasOwn(FALLBACKS, agent)
    ? (FALLBACKS[agent] as [string, string?])
    : [CLAUDE_FALLBACK];
  return program(answers, passed, version);
}

for (const agent of ['claude-code', ...Object.keys(FALLBACKS)]) {
  if (/['\\]/.test(programOf(agent)))
    throw new Error('hook-wrapper: the program must hold no quote or backslash');
}

/** A word for the command line, single-quoted when it needs quoting (`'` as `'\''`). */
function word(text: string): string {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replaceAll("'", `'\\''`)}'`;
}

/**
 * The hook command for `agent` that fails closed when hermes cannot run: `argv` is hermes'
 * command line and `pins` the user's values of PINS, absolute (the user form); neither for the
 * project's own `node_modules/.bin/hermes` (the project form).
 */
export function wrappedHookCommand(
  agent: string,
  argv: readonly string[] = [],
  pins: Pins = {},
): string {
  const text = programOf(agent);
  const words = PINS.flatMap((name) => {
    const value = pins[name];
    return value === undefined ? [] : [word(`${name}=${value}`)];
  });
  return ['/bin/sh', '-c', `'${text}'`, NAME, word(agent), `'"'`, ...words, ...argv.map(word)].join(
    ' ',
  );
}

/** What a wrapped hook command runs. */
export interface UnwrappedHook {
  agent: string;
  /** hermes' command line; empty: the project form. */
  argv: string[];
  /** The values of PINS the command carries (the user form as install writes it). */
  pins: Pins;
  /**
   * A program that unsets UNSET and exports `$HERMES_HOME` and the daemon's folder from its words
   * (versions 2 and later); false for an earlier version's, which took them from whatever
   * environment the agent gave it. (Versions 2 and 3 take the agents' config folders from there
   * still: install rewrites them, `current` false, and `doctor` finds a hook file of theirs is not
   * what this version writes.)
   */
  pinned: boolean;
  /** The current program: install rewrites any other (an upgrade), as it does a changed argv. */
  current: boolean;
}

/**
 * What a command `wrappedHookCommand` wrote runs. Undefined for any other command. The programs
 * of earlier versions are known too (`pinned` false), so that install and uninstall still replace
 * and remove them; a new program keeps these known the same way.
 */
export function unwrapHookCommand(command: string): UnwrappedHook | undefined {
  const words = parse(command);
  if (words.some((w) => typeof w !== 'string')) return undefined;
  const [shell, flag, text, name, agent, quote, ...rest] = words as string[];
  if (shell !== '/bin/sh' || flag !== '-c' || name !== NAME) return undefined;
  if (agent === undefined || quote !== '"') return undefined;
  const version = VERSIONS.find((v) => text === programOf(agent, v));
  if (version === undefined) return undefined;
  const pins: Pins = {};
  let argv = rest;
  // As the program reads them: before version 4 each in its place or not there, since then any
  // of them in any order (the last of a name wins).
  const take = (pin: (typeof PINS)[number]) => {
    pins[pin] = (argv[0] as string).slice(pin.length + 1);
    argv = argv.slice(1);
  };
  const pinAt = (name: string) => argv[0]?.startsWith(`${name}=/`) === true;
  if (version >= 4) {
    for (let pin = PINS.find(pinAt); pin !== undefined; pin = PINS.find(pinAt)) take(pin);
  } else {
    for (const pin of PINNED[version]) if (pinAt(pin)) take(pin);
  }
  return { agent, argv, pins, pinned: version >= 2, current: version === CURRENT };
}
