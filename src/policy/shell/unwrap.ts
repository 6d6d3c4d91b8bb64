import type { JudgeContext } from './judge.js';
import { parseShell, type ShellCommand } from './script.js';
import { WRAPPERS } from './wrappers.js';

/** A command a line runs, as its wrappers leave it. */
export interface RunCommand {
  command: ShellCommand;
  /** Words only known when it runs are added to its own (`xargs CMD`). */
  moreUnknown: boolean;
}

/**
 * What one simple command runs: itself, then every command its wrappers run, however deep, and
 * what could not be followed (`unclear`, each with the part of the line and why).
 */
export interface Unwrapped {
  commands: RunCommand[];
  unclear: Array<{ part: string; reason: string }>;
}

/**
 * Programs that run another command which `unwrapCommand` does not take apart: what they run is
 * unclear. (The read-only allowlist refuses them outright: none is on it.)
 */
const NOT_FOLLOWED = new Set([
  'exec',
  'nohup',
  'stdbuf',
  'sudo',
  'doas',
  'su',
  'runuser',
  'setsid',
  'chroot',
  'ionice',
  'taskset',
  'chrt',
  'flock',
  'watch',
  'parallel',
  'unbuffer',
  'script',
  'busybox',
  'strace',
  'ltrace',
  'nsenter',
  'unshare',
  'systemd-run',
  'source',
  '.',
]);
/** `bash -c "bash -c …"` nested deeper than this is unclear (analyze.ts stops at the same depth). */
const MAX_DEPTH = 8;

/**
 * The program a command runs, by name: the last part of the path it is named by (`/usr/bin/grep`
 * is grep). A file named by its path may be anything; a caller that must not miss a program takes
 * it for the one its name says (the read-only allowlist does the opposite: it knows bare names
 * only). Undefined when the name is only known when the command runs.
 */
export function programName(command: ShellCommand): string | undefined {
  const program = command.program;
  if (program === undefined || !program.literal) return undefined;
  return program.value.slice(program.value.lastIndexOf('/') + 1);
}

/**
 * Takes the wrappers off a simple command, with the rules the read-only allowlist judges them by
 * (wrappers.ts: `env`, `timeout`, `nice`, `command`, `xargs`, `sh`/`bash`/`dash -c CODE`), plus
 * `eval` (its words joined, parsed as a line). The command itself comes first, then what each
 * wrapper runs, each named as it is run (`env grep -r x` gives `env …` and `grep -r x`). A wrapper
 * whose own options its rule does not know, a program only known when it runs, `eval` of words
 * only known when it runs, shell code that does not parse and the runners this does not follow
 * (`nohup`, `sudo`, `exec`, `source`, …) are `unclear`: a caller that must be sure of what runs
 * treats them as anything at all.
 */
export function unwrapCommand(command: ShellCommand): Unwrapped {
  const found: Unwrapped = { commands: [], unclear: [] };
  visit(command, false, 0, found);
  return found;
}

function visit(command: ShellCommand, moreUnknown: boolean, depth: number, found: Unwrapped) {
  found.commands.push({ command, moreUnknown });
  const unclear = (reason: string) => found.unclear.push({ part: command.text, reason });
  if (command.program === undefined) return; // redirections alone
  const name = programName(command);
  if (name === undefined) {
    unclear(`the program \`${command.program.text}\` is only known when it runs`);
    return;
  }
  const code = (line: string): string | undefined => {
    if (depth >= MAX_DEPTH) return 'shells nested too deep';
    if (command.cwd === undefined) return `${name} runs code in a folder that is not known`;
    const script = parseShell(line, command.cwd.lexical);
    if (!script.parsed)
      return `${script.problems[0] ?? 'the code does not parse'} (in \`${line}\`)`;
    for (const inner of script.commands) visit(inner, false, depth + 1, found);
    return undefined;
  };
  if (name === 'eval') {
    const dynamic = command.words.find((word) => !word.literal);
    if (dynamic !== undefined) {
      unclear(`eval runs \`${dynamic.text}\`, only known when it runs`);
      return;
    }
    const problem = code(command.words.map((word) => word.value).join(' '));
    if (problem !== undefined) unclear(problem);
    return;
  }
  if (NOT_FOLLOWED.has(name)) {
    if (command.words.length > 0) unclear(`${name} runs a command this analysis does not follow`);
    return;
  }
  const rule = WRAPPERS[name];
  if (rule === undefined) return;
  const context: JudgeContext = {
    program: name,
    command,
    root: '/',
    moreUnknown,
    write: () => undefined,
    inner: (words, more) => {
      const [first, ...rest] = words;
      visit(
        {
          ...command,
          name: first?.value ?? '',
          program: first,
          words: rest,
          args: rest.map((word) => word.value),
          redirects: [],
          text: words.map((word) => word.text).join(' '),
        },
        more,
        depth,
        found,
      );
      return undefined;
    },
    script: code,
  };
  const problem = rule(command.words, context);
  if (problem !== undefined) unclear(problem);
}
