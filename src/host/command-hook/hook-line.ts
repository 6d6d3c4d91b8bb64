import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { parse } from 'shell-quote';
import {
  hookProgram,
  PINS,
  type Pins,
  type UnwrappedHook,
  unwrapHookCommand,
} from './hook-wrapper.js';

/**
 * The short line the user form installs for each event, where the agent runs a hook through a
 * shell and keeps one command per event (Claude Code's and Codex's hooks-json settings):
 *
 *     /bin/sh -c 'IFS= read -r w <"$0" && [ ${#w} = 742 ] && eval "$w"; …; exit 2' /home/me/.hermes/hook-commands/claude-code PreToolUse
 *
 * The fail-closed program (hook-wrapper.ts) moves into a file on protected ground, under
 * `$HERMES_HOME` (no tool call of the agent may write there, docs/trust.md), named by its absolute
 * path — never through a variable, which a project's settings could set. The line does not run
 * that file: it reads its first line into the shell it already is (a builtin, no fork), checks
 * its length, and only then evaluates it (`hookFileText`: the second is checked the same way
 * before it runs); the program ends every path with an `exit` of its own. So
 * the file fails closed whatever became of it: missing, unreadable, a folder, empty (`read`
 * fails), or anything of another length (`exit 0`, a truncated or other version's program) never
 * runs, and the line ends with the agent's refusal by exit code — `exit 2` where that blocks
 * (a tool call, a prompt: both agents take exit 2 as a block, its stderr the reason), `exit 1`
 * elsewhere (a failed hook that blocks nothing: exit 2 at `Stop` would keep the agent going).
 * Its mode does not matter (it is read, not executed). An edit of the same length is the one the
 * line cannot see: writing protected ground is the user's own doing, and `doctor` compares the
 * file byte for byte with what this version writes (`readHookFile`).
 *
 * `${#w}` counts bytes in dash and characters in bash under a UTF-8 locale, so the file holds
 * ASCII only: a home or package path with other characters keeps the inline program
 * (`hookFileText` says undefined). The project form (`--project`) stays inline too: it is
 * committed, so it names no path of this machine, and a file inside the project would be the
 * project's to change (docs/command-hooks.md).
 */

/** The folder under `$HERMES_HOME` the agents' hook programs are written in (home-entries.ts). */
export const HOOK_FILES_FOLDER = 'hook-commands';

/** The file the hook program of `agent` is written in. */
export function hookFile(home: string, agent: string): string {
  return join(home, HOOK_FILES_FOLDER, agent);
}

/** The events at which exit 2 is the agent's refusal; at any other a failure exits 1. */
const BLOCKING_EVENTS = ['PreToolUse', 'UserPromptSubmit'];

/**
 * The line's program: read, check the length, evaluate; else read the event to its end (an
 * agent writing it must not meet a closed pipe), say why on stderr (both agents show a refusal's
 * stderr; Codex wants one) and refuse by exit code. Builtins only: nothing from the PATH, which
 * the project's environment may set. `fix` is free of `"`, `$`, `` ` ``, `\\` and `'`.
 */
const lineProgram = (length: number, fix: string, exit: 1 | 2) =>
  `IFS= read -r w <"$0" && [ \${#w} = ${length} ] && eval "$w"; while read -r w; do :; done; echo "hermes: $0 is missing or altered: ${fix}" >&2; exit ${exit}`;
const LINE_PROGRAM =
  /^IFS= read -r w <"\$0" && \[ \$\{#w\} = (\d+) \] && eval "\$w"; while read -r w; do :; done; echo "hermes: \$0 is missing or altered: [^"$`\\']+" >&2; exit ([12])$/;

/** A word for the command line, single-quoted when it needs quoting (`'` as `'\''`). */
function word(text: string): string {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replaceAll("'", `'\\''`)}'`;
}

/** Where the program's path on which hermes answered ends: what follows runs only when it did not. */
const ANSWERED = 'if [ "$s" = 0 ]; then printf %s "$o"; exit 0; fi; ';

/**
 * What the hook file of `agent` holds for hermes' `argv` and the user's `pins`: two lines. The
 * first, which the settings line checks and evaluates on every call, sets the program's arguments
 * and runs it up to hermes' answer; only when hermes did not answer does it read the second (the
 * reasons and fallback answers, most of the program), check its length the same way and evaluate
 * it — else it returns, and the settings line refuses. Every call reads about 1.4 KB (the Perl
 * hook client's step is a third of it), not the whole program (dash's `read` takes a byte per
 * system call). Undefined when it would not be ASCII (above).
 */
export function hookFileText(
  agent: string,
  argv: readonly string[],
  pins: Pins,
): string | undefined {
  const words = [
    agent,
    `'"'`,
    ...PINS.flatMap((name) => (pins[name] === undefined ? [] : [`${name}=${pins[name]}`])),
    ...argv,
  ].map((w, at) => (at === 1 ? w : word(w)));
  const [hot, cold] = programHalves(agent);
  const first = `set -- ${words.join(' ')}; ${hot}${ANSWERED}{ IFS= read -r x; IFS= read -r x; } <"$0" && [ \${#x} = ${cold.length} ] && eval "$x"`;
  const text = `${first}\n${cold}\n`;
  return /^[\x20-\x7e\n]*$/.test(text) ? text : undefined;
}

/** The program of `agent` (hook-wrapper.ts) up to hermes' answer, and after it. */
function programHalves(agent: string): [string, string] {
  const program = hookProgram(agent);
  const at = program.indexOf(ANSWERED);
  if (at === -1) throw new Error('hook-line: the program has no answered path');
  return [program.slice(0, at), program.slice(at + ANSWERED.length)];
}

/**
 * The line the settings hold for `event`, running the hook file `file` whose text is `text`;
 * `fix` is the command that writes both again (`hermes hook install <agent>`).
 */
export function hookLine(file: string, event: string, text: string, fix: string): string {
  const exit = BLOCKING_EVENTS.includes(event) ? 2 : 1;
  const length = text.indexOf('\n'); // its first line, without its newline, as `read` gives it
  const said = fix.replace(/["$`\\']/g, '?');
  return ['/bin/sh', '-c', `'${lineProgram(length, said, exit)}'`, word(file), word(event)].join(
    ' ',
  );
}

/** Writes the hook file whole (another process never reads half of it), readable by the user only. */
export function writeHookFile(file: string, text: string): void {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  const temporary = `${file}.${process.pid}.tmp`;
  try {
    writeFileSync(temporary, text, { mode: 0o400 });
    renameSync(temporary, file);
  } finally {
    rmSync(temporary, { force: true });
  }
}

/** A line `hookLine` wrote: the file it reads, the event it names, the length it checks. */
export interface HookLine {
  file: string;
  /** The agent: the file's name. */
  agent: string;
  event: string;
  length: number;
}

export function parseHookLine(command: string): HookLine | undefined {
  const words = parse(command);
  if (words.length !== 5 || words.some((w) => typeof w !== 'string')) return undefined;
  const [shell, flag, program, file, event] = words as string[];
  if (shell !== '/bin/sh' || flag !== '-c') return undefined;
  const match = LINE_PROGRAM.exec(program as string);
  if (match === null || !(file as string).startsWith('/')) return undefined;
  return {
    file: file as string,
    agent: basename(file as string),
    event: event as string,
    length: Number(match[1]),
  };
}

/** What the hook file of a line runs, or why it would not run (the line then refuses). */
export type HookFileRead = { hook: UnwrappedHook } | { problem: string };

/**
 * Reads the file a line names: what it runs, if it is byte for byte what this version writes
 * for that and the line checks its length; else what is wrong with it.
 */
export function readHookFile(line: HookLine): HookFileRead {
  let text: string;
  try {
    text = readFileSync(line.file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return { problem: code === 'ENOENT' ? 'is missing' : `cannot be read (${code})` };
  }
  const altered = {
    problem: 'is not what this version of hermes writes (edited, or written by another version)',
  };
  const [hot] = programHalves(line.agent);
  const words = /^set -- (.*?); a=\$1 q=\$2; /.exec(text)?.[1];
  if (words === undefined) return altered;
  const hook = unwrapHookCommand(`/bin/sh -c '${hookProgram(line.agent)}' hermes-hook ${words}`);
  if (hook === undefined || !hook.current || hook.agent !== line.agent) return altered;
  if (hookFileText(hook.agent, hook.argv, hook.pins) !== text || !text.includes(hot))
    return altered;
  if (text.indexOf('\n') !== line.length)
    return {
      problem:
        'is not the length the command checks (the command or the file is of another version)',
    };
  return { hook };
}
