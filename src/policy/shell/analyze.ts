import { resolve } from 'node:path';
import { parse } from 'unbash';
import { ASSIGNING_BUILTINS } from './builtin-table.js';
import { assigns } from './builtins.js';
import type { JudgeContext } from './judge.js';
import { posixProblem } from './posix.js';
import { READ_ONLY_PROGRAMS } from './programs.js';
import {
  argvScript,
  parseShell,
  type ShellCommand,
  type ShellCwd,
  type ShellScript,
} from './script.js';
import { harmlessAssignment } from './variables.js';
import { asksVersion } from './versions.js';
import type { ShellWord } from './words.js';

export interface ShellAnalysisOptions {
  /** The project root (absolute). Default: the process's working directory. */
  root?: string;
  /** Where the command starts: absolute, or relative to `root`. Default: `root`. */
  cwd?: string;
  /**
   * Programs the user trusts to only read, besides the built-in ones: a program name (`make`:
   * with any arguments), or a name and its first arguments (`npm test`: only so).
   */
  readOnly?: readonly string[];
}

/** A file a command writes: a redirection target, or what `tee` and `mkdir` name. */
export interface ShellWrite {
  /** As the command names it (`~/` expanded). */
  path: string;
  /** Where it resolves from; undefined when an earlier `cd` made that unknown. */
  cwd: ShellCwd | undefined;
  /** What writes it: `>`, `>>`, `tee`, `mkdir`, … */
  by: string;
}

/**
 * What a shell command does, judged by allowlist: `analyzed` when every simple command in it, at
 * every level, is a program known to only read (with only options known to only read), with no
 * assignment and nothing the parser did not understand; then `writes` lists the files its
 * redirections, `tee` and `mkdir` would write, for the caller to check. Anything else is
 * `opaque`, with the reason and the part of the line it concerns.
 */
export type ShellAnalysis =
  | { kind: 'analyzed'; commands: ShellCommand[]; writes: ShellWrite[] }
  | { kind: 'opaque'; reason: string; part: string; commands: ShellCommand[] };

/** Standard streams and the null device: writing there changes no file. */
export const STANDARD_STREAMS: ReadonlySet<string> = new Set([
  '/dev/null',
  '/dev/stdout',
  '/dev/stderr',
  '/dev/tty',
  '/dev/fd/1',
  '/dev/fd/2',
]);
/** `bash -c "bash -c …"` nested deeper than this is refused. */
const MAX_DEPTH = 8;

/**
 * Judges a shell line (`string`, run by bash or sh) or an argument vector (`string[]`, run
 * without a shell). The second argument may also be the `readOnly` list alone.
 */
export function analyzeShell(
  command: string | readonly string[],
  options: ShellAnalysisOptions | readonly string[] = {},
): ShellAnalysis {
  const {
    root = process.cwd(),
    cwd,
    readOnly = [],
  } = Array.isArray(options)
    ? { readOnly: options as readonly string[] }
    : (options as ShellAnalysisOptions);
  const judge = new Judge(resolve(root), readOnly);
  const start = resolve(root, cwd ?? '.');
  return typeof command === 'string'
    ? judge.line(command, start, 0)
    : judge.argv(command as readonly string[], start);
}

class Judge {
  private readonly trusted: string[][];

  constructor(
    private readonly root: string,
    readOnly: readonly string[],
  ) {
    this.trusted = readOnly.map((entry) => entry.trim().split(/\s+/)).filter((e) => e[0] !== '');
  }

  /** `posix`: the line runs under sh, which may be dash (posix.ts). */
  line(line: string, cwd: string, depth: number, posix = false): ShellAnalysis {
    const dash = posix ? posixProblem(parse(line)) : undefined;
    if (dash !== undefined) return { kind: 'opaque', reason: dash, part: line, commands: [] };
    return this.script(parseShell(line, cwd), line, depth);
  }

  argv(argv: readonly string[], cwd: string): ShellAnalysis {
    if (argv.length === 0)
      return { kind: 'opaque', reason: 'an empty command', part: '', commands: [] };
    return this.script(argvScript(argv, cwd), argv.join(' '), 0);
  }

  private script(script: ShellScript, text: string, depth: number): ShellAnalysis {
    const { commands } = script;
    const problem = script.problems[0];
    if (problem !== undefined) return { kind: 'opaque', reason: problem, part: text, commands };
    const writes: ShellWrite[] = [];
    for (const command of commands) {
      const reason = this.command(command, writes, depth, false);
      if (reason !== undefined) return { kind: 'opaque', reason, part: command.text, commands };
    }
    return { kind: 'analyzed', commands, writes };
  }

  /** Why one simple command is not known to only read, or undefined (its writes recorded). */
  private command(
    command: ShellCommand,
    writes: ShellWrite[],
    depth: number,
    moreUnknown: boolean,
  ): string | undefined {
    const assignment = command.assignments.find((a) => !harmlessAssignment(command.name, a));
    if (assignment !== undefined) {
      return `the assignment \`${assignment}\` changes what the program reads or runs`;
    }
    for (const redirect of command.redirects) {
      if (!redirect.write || STANDARD_STREAMS.has(redirect.target.value)) continue;
      writes.push({ path: redirect.target.value, cwd: redirect.cwd, by: redirect.operator });
    }
    const program = command.program;
    if (program === undefined) return undefined; // redirections alone
    if (!program.literal) return `the program \`${program.text}\` is only known when it runs`;
    const name = program.value;
    if (name.includes('/')) {
      return `\`${name}\` runs a file by its path; only programs named bare (\`ls\`, \`git\`) are known`;
    }
    if (this.isTrusted(name, command.words)) return undefined;
    const rule = READ_ONLY_PROGRAMS[name];
    if (rule === undefined) {
      return ASSIGNING_BUILTINS.has(name)
        ? assigns(name)
        : `\`${name}\` is not a program known to only read`;
    }
    if (asksVersion(name, command.words, moreUnknown)) return undefined;
    const context: JudgeContext = {
      program: name,
      command,
      root: this.root,
      moreUnknown,
      write: (target) => {
        writes.push({ path: target.value, cwd: command.cwd, by: name });
        return undefined;
      },
      inner: (words, more) => {
        const [first, ...rest] = words;
        return this.command(
          {
            ...command,
            name: first?.value ?? '',
            program: first,
            words: rest,
            args: rest.map((w) => w.value),
            redirects: [],
          },
          writes,
          depth,
          more,
        );
      },
      script: (code, posix) => {
        if (depth >= MAX_DEPTH) return 'shells nested too deep';
        if (command.cwd === undefined) return `${name} -c runs in a folder that is not known`;
        const inner = this.line(code, command.cwd.lexical, depth + 1, posix);
        if (inner.kind === 'opaque') return `${inner.reason} (in \`${inner.part}\`)`;
        writes.push(...inner.writes);
        return undefined;
      },
    };
    return rule(command.words, context);
  }

  /** A program the user listed, with the first arguments the entry names. */
  private isTrusted(name: string, words: readonly ShellWord[]): boolean {
    return this.trusted.some(
      ([program, ...first]) =>
        program === name &&
        first.every((arg, i) => words[i]?.literal === true && words[i]?.value === arg),
    );
  }
}
