import { parse } from 'shell-quote';
import { ANTIGRAVITY_FALLBACK } from './agents/antigravity-fallback.js';
import { CURSOR_FALLBACK } from './agents/cursor-fallback.js';
import { HERMES_AGENT_FALLBACK, HERMES_AGENT_PASSED } from './agents/hermes-agent-fallback.js';

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
 * way), and it must not need anything from `node_modules`. It reads the event into a variable,
 * hands it to hermes unchanged on stdin, and prints hermes' stdout byte for byte when hermes
 * exits 0 (hermes' stderr is never touched); the event's name is read only when hermes failed,
 * with `tr` and a `case` pattern (no jq): the agents write compact JSON, and whitespace is
 * ignored anyway. A tool call's arguments may hold a `"hook_event_name"` key of their own, so
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
 * The program, up to the line that prints the fallback answer (`answers`, the agent's own). `$1`
 * the agent, `$2` a `"`, then hermes' argv (none: the project's own). `$s` is hermes' exit code,
 * `$m` what went wrong, `$k` the start of `"hook_event_name":"`, `$n` the event without spaces.
 */
const program = (answers: string, passed?: string) =>
  [
    'a=$1 q=$2',
    'shift 2',
    'p=',
    // The project form: Claude Code names the project's root; Codex runs the hook in the session's
    // folder, below the repository's root, or outside a repository in the folder it read .codex/ in.
    'if [ $# = 0 ]; then p=1; case $a in claude-code) r=$CLAUDE_PROJECT_DIR;; *) r=$(git rev-parse --show-toplevel 2>/dev/null || pwd);; esac; set -- "$r/node_modules/.bin/hermes" hook "$a"; fi',
    // `.` keeps the event's trailing newlines, which `$(...)` would drop.
    'e=$(cat; echo .)',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: shell text
    'e=${e%.}',
    'o=$(printf %s "$e" 2>/dev/null | "$@"; echo " $?")',
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
    'else m="hermes ended with exit code $s and no answer (its error output says why; hermes extensions doctor checks the setup)"; fi',
    // JSON-safe: a quote, a backslash (the range [ to ^ holds it) or a control character becomes ?.
    't=$m',
    'm=',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: shell text
    'while [ -n "$t" ]; do c=${t%"${t#?}"}; t=${t#?}; case $c in "$q"|[[-^]|[[:cntrl:]]) c=?;; esac; m=$m$c; done',
    'echo "hermes hook $a: $m" >&2',
    'n=$(printf %s "$e" | tr -d "[:space:]")',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: shell text
    'k=${q}hook_event_name${q}:${q}',
    answers,
    'exit 0',
  ].join('; ');

/** Claude Code's and Codex's program: its text is how installed commands are recognised. */
const PROGRAM = program(
  `case $n in *"$k"PreToolUse"$q"*) printf %s ${DENY};; *"$k"UserPromptSubmit"$q"*) printf %s ${BLOCK_PROMPT};; *"$k"*) printf %s ${TELL};; *) printf %s ${DENY};; esac`,
);

/**
 * Agents whose fallback answers are not Claude Code's: the same program, with the last line
 * printing the answer in the agent's own wire (agents/cursor-fallback.ts,
 * agents/antigravity-fallback.ts). Claude Code's answer would fail open there.
 */
const VARIANTS: Readonly<Record<string, string>> = {
  cursor: program(CURSOR_FALLBACK),
  antigravity: program(ANTIGRAVITY_FALLBACK),
  'hermes-agent': program(HERMES_AGENT_FALLBACK, HERMES_AGENT_PASSED),
};

for (const text of [PROGRAM, ...Object.values(VARIANTS)]) {
  if (/['\\]/.test(text))
    throw new Error('hook-wrapper: the program must hold no quote or backslash');
}

/** The program the command of `agent` runs. */
const programOf = (agent: string): string =>
  Object.hasOwn(VARIANTS, agent) ? (VARIANTS[agent] as string) : PROGRAM;

/** A word for the command line, single-quoted when it needs quoting (`'` as `'\''`). */
function word(text: string): string {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replaceAll("'", `'\\''`)}'`;
}

/**
 * The hook command for `agent` that fails closed when hermes cannot run: `argv` is hermes'
 * command line (the user form), none the project's own `node_modules/.bin/hermes` (the project
 * form).
 */
export function wrappedHookCommand(agent: string, argv: readonly string[] = []): string {
  const text = programOf(agent);
  return ['/bin/sh', '-c', `'${text}'`, NAME, word(agent), `'"'`, ...argv.map(word)].join(' ');
}

/**
 * What a command `wrappedHookCommand` wrote runs: the agent and hermes' argv (empty: the
 * project form). Undefined for any other command, this program's earlier versions included,
 * which a new program should list here so that install and uninstall still know them.
 */
export function unwrapHookCommand(command: string): { agent: string; argv: string[] } | undefined {
  const words = parse(command);
  if (words.some((w) => typeof w !== 'string')) return undefined;
  const [shell, flag, text, name, agent, quote, ...argv] = words as string[];
  if (shell !== '/bin/sh' || flag !== '-c' || name !== NAME) return undefined;
  if (agent === undefined || quote !== '"' || text !== programOf(agent)) return undefined;
  return { agent, argv };
}

/**
 * The exit code of an answer that also carries a notice for the user on stderr, for an agent
 * that shows a hook's stderr only when it exits with neither 0 nor 2 (and still reads its
 * stdout): the Hermes agent logs it as a warning. Never the exit code of a failure (Node exits 1).
 */
export const NOTICE_EXIT_CODE = 3;
