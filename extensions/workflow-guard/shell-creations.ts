import { basename } from 'node:path';
import {
  analyzeShell,
  argvScript,
  parseShell,
  READ_ONLY_COMMANDS,
  type ShellCommand,
  type ShellWord,
  STANDARD_STREAMS,
} from 'hermes-extensions/policy';
import { type Creation, CreationLog } from './creation-log.js';
import { FILE_COMMANDS, fileCommandCreations } from './file-commands.js';
import { gitCreations } from './git-creations.js';
import { mentionedPaths } from './mentioned-paths.js';
import { patchCommandCreations } from './patch-creations.js';

export type { Creation } from './creation-log.js';

/** What a shell line may create, or why the guard cannot tell. */
export type ShellCreations = { creations: Creation[] } | { unclear: string };

/** Programs that run the command their words name. */
const WRAPPERS = new Set([
  'env',
  'sudo',
  'doas',
  'command',
  'builtin',
  'exec',
  'nohup',
  'nice',
  'ionice',
  'time',
  'timeout',
  'stdbuf',
  'xargs',
  'busybox',
  'setsid',
  'taskset',
  'chrt',
  'watch',
]);
/** Wrapper options that run the program in another folder (`env -C src mkdir x`). */
const CHANGES_FOLDER: Readonly<Record<string, RegExp>> = {
  env: /^(-[a-zA-Z]*C|--chdir|--ch\b)/,
  sudo: /^(-[a-zA-Z]*D|--chdir)/,
};
/** find's actions that run a program on what it found. */
const FIND_RUNS = new Set(['-exec', '-execdir', '-ok', '-okdir']);
const SHELLS = new Set(['sh', 'bash', 'dash', 'zsh', 'ksh', 'mksh', 'ash']);
/** Programs a wrapper's words are searched for. */
const RUNNABLE = new Set([...FILE_COMMANDS, ...WRAPPERS, ...SHELLS, 'git', 'eval', 'find']);
const MAX_DEPTH = 8;

/**
 * The paths a shell line (or argument vector) may create, starting in `cwd` (absolute). A line
 * that only reads, apart from redirections, `tee` and `mkdir`, is read exactly (`analyzeShell`).
 * Otherwise each command is read on its own: the file commands (`mkdir`, `cp`, `mv`, `ln`,
 * `install`, `touch`, `tee`, `truncate`, `rsync`, `git mv`/`clone`/`worktree`/`submodule`/
 * `init`) by their operands, commands behind wrappers and in `sh -c` code in turn, and any
 * other program by the paths its words name (`node gen.js src/x`, `python -c "open('src/x/a')"`).
 * A word the file commands would only know when they run (`$D`, `src/{a,b}`) makes it unclear.
 */
export function shellCreations(
  run: string | readonly string[],
  options: {
    root: string;
    cwd: string;
    readOnly: readonly string[];
    moduleRoots: readonly string[];
  },
): ShellCreations {
  const log = new CreationLog(options.root, options.moduleRoots);
  const unclear = new Walker(log, options.readOnly).line(run, options.cwd, 0);
  if (unclear !== undefined) return { unclear };
  // Paths are resolved before the line runs: a link it makes first (`ln -s src s && mkdir
  // s/x`) would lead the paths after it elsewhere.
  if (log.links > 0 && log.creations.length > log.links) {
    return { unclear: 'it makes a link and creates more in the same line (run them as two calls)' };
  }
  return { creations: log.creations };
}

/** Reads each command of a line, through wrappers, `sh -c`, `eval` and `find -exec`. */
class Walker {
  constructor(
    private readonly log: CreationLog,
    private readonly readOnly: readonly string[],
  ) {}

  line(run: string | readonly string[], cwd: string, depth: number): string | undefined {
    const { root } = this.log;
    const analysis = analyzeShell(run, { root, cwd, readOnly: this.readOnly });
    if (analysis.kind === 'analyzed') {
      for (const write of analysis.writes) {
        const problem = this.log.add(write.path, write.cwd, write.by === 'mkdir', write.by);
        if (problem) return problem;
      }
      return undefined;
    }
    const script = typeof run === 'string' ? parseShell(run, cwd) : argvScript(run, cwd);
    if (!script.parsed) return `the command cannot be parsed: ${script.problems[0] ?? ''}`;
    for (const command of script.commands) {
      for (const redirect of command.redirects) {
        if (!redirect.write || STANDARD_STREAMS.has(redirect.target.value)) continue;
        if (!redirect.target.literal) {
          return `the redirection target \`${redirect.target.text}\` is only known when the command runs`;
        }
        const problem = this.log.add(redirect.target.value, redirect.cwd, false, redirect.operator);
        if (problem) return problem;
      }
      const problem = this.command(command, command.program, command.words, depth, false);
      if (problem) return problem;
    }
    return undefined;
  }

  private command(
    command: ShellCommand,
    program: ShellWord | undefined,
    words: readonly ShellWord[],
    depth: number,
    moreUnknown: boolean,
  ): string | undefined {
    if (program === undefined) return undefined;
    if (!program.literal) return `the program \`${program.text}\` is only known when it runs`;
    const name = basename(program.value);
    if (FILE_COMMANDS.has(name) || name === 'git') {
      if (moreUnknown) return `${name} would be given words only known when it runs`;
      return name === 'git'
        ? gitCreations(this.log, words, command)
        : fileCommandCreations(this.log, name, words, command.cwd);
    }
    if (SHELLS.has(name)) return this.shell(name, words, command, depth);
    if (name === 'patch') {
      if (moreUnknown) return 'patch would be given words only known when it runs';
      return patchCommandCreations(this.log, words, command);
    }
    if (name === 'eval') {
      if (!words.every((word) => word.literal)) return 'eval of words only known when it runs';
      if (command.cwd === undefined) return 'eval runs in a folder that is not known';
      return this.nested(words.map((word) => word.value).join(' '), command.cwd.lexical, depth);
    }
    if (WRAPPERS.has(name)) {
      const inner = words.findIndex((word) => word.literal && RUNNABLE.has(basename(word.value)));
      const before = inner === -1 ? words : words.slice(0, inner);
      const hidden = before.find((word) => !word.literal && !word.text.includes('='));
      if (hidden)
        return `\`${hidden.text}\` may be the program ${name} runs, only known when it runs`;
      const elsewhere = CHANGES_FOLDER[name];
      const moved = before.find((word) => elsewhere?.test(word.value));
      if (moved) {
        return `\`${name} ${moved.text}\` runs the program in another folder; use cd instead`;
      }
      if (inner !== -1) {
        const more = moreUnknown || name === 'xargs';
        return this.command(command, words[inner], words.slice(inner + 1), depth, more);
      }
    }
    if (name === 'find') {
      // `find … -exec PROGRAM … {} ;`: PROGRAM gets the names found, only known when it runs.
      const run = words.findIndex((word) => word.literal && FIND_RUNS.has(word.value));
      const inner = words[run + 1];
      if (run !== -1 && inner !== undefined) {
        if (!inner.literal) return `the program \`${inner.text}\` is only known when it runs`;
        if (RUNNABLE.has(basename(inner.value))) {
          return this.command(command, inner, words.slice(run + 2), depth, true);
        }
      }
    }
    if (READ_ONLY_COMMANDS.includes(name) && this.onlyReads(program, words, command)) {
      return undefined;
    }
    return mentionedPaths(this.log, name, words, command.cwd);
  }

  /** A program known to read, used so (its writes recorded). */
  private onlyReads(program: ShellWord, words: readonly ShellWord[], command: ShellCommand) {
    if (command.cwd === undefined || !words.every((word) => word.literal)) return false;
    const argv = [program.value, ...words.map((word) => word.value)];
    const analysis = analyzeShell(argv, {
      root: this.log.root,
      cwd: command.cwd.lexical,
      readOnly: this.readOnly,
    });
    if (analysis.kind !== 'analyzed') return false;
    for (const write of analysis.writes) {
      this.log.creations.push({
        path: write.path,
        cwd: command.cwd,
        folder: write.by === 'mkdir',
        by: write.by,
      });
    }
    return true;
  }

  /** `sh -c CODE`: the code, read like the line; a script file only by what its words name. */
  private shell(name: string, words: readonly ShellWord[], command: ShellCommand, depth: number) {
    let code = false;
    let i = 0;
    for (; i < words.length; i++) {
      const word = words[i] as ShellWord;
      if (!word.literal) return `\`${word.text}\` of ${name} is only known when it runs`;
      if (!word.value.startsWith('-') && !word.value.startsWith('+')) break;
      if (/^-[a-zA-Z]*c/.test(word.value)) code = true;
      if (/^[-+][a-zA-Z]*o$/.test(word.value)) i++;
    }
    if (!code) return mentionedPaths(this.log, name, words, command.cwd);
    const text = words[i];
    if (text === undefined) return undefined;
    if (command.cwd === undefined) return `${name} -c runs in a folder that is not known`;
    return this.nested(text.value, command.cwd.lexical, depth);
  }

  private nested(code: string, cwd: string, depth: number): string | undefined {
    if (depth >= MAX_DEPTH) return 'shells nested too deep';
    return this.line(code, cwd, depth + 1);
  }
}
