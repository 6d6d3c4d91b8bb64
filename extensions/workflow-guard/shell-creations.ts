import { readFileSync, statSync } from 'node:fs';
import { basename, isAbsolute, join, resolve } from 'node:path';
import {
  analyzeShell,
  argvScript,
  type PathBase,
  parseShell,
  READ_ONLY_COMMANDS,
  readPatch,
  type ShellCommand,
  type ShellWord,
  STANDARD_STREAMS,
} from 'hermes-extensions/policy';

/** A path a call may create, and whether what it creates there may be a folder. */
export interface Creation {
  path: string;
  /** Where a relative path starts (default: the project root). */
  cwd?: PathBase;
  /** The last segment may be a folder (`mkdir x`, `cp -r a x`), not only a file. */
  folder: boolean;
  /** What creates it, for messages. */
  by: string;
}

/** What a shell line may create, or why the guard cannot tell. */
export type ShellCreations = { creations: Creation[] } | { unclear: string };

/** Programs that create the paths they name. */
const CREATORS = new Set([
  'mkdir',
  'touch',
  'tee',
  'truncate',
  'cp',
  'mv',
  'ln',
  'link',
  'install',
  'rsync',
]);
/** Their short options that take a value (the next word, or the rest of the word). */
const VALUED: Readonly<Record<string, string>> = {
  mkdir: 'm',
  install: 'mogSt',
  cp: 'St',
  mv: 'St',
  ln: 'St',
  touch: 'drt',
  truncate: 'sr',
  rsync: 'eBfTM',
};
/** Their long options that take a value when it is not given after `=`. */
const LONG_VALUED = new Set([
  'mode',
  'suffix',
  'target-directory',
  'owner',
  'group',
  'strip-program',
  'size',
  'reference',
  'date',
  'time',
  'exclude',
  'include',
  'rsh',
  'temp-dir',
  'backup-dir',
  'partial-dir',
  'compare-dest',
  'copy-dest',
  'link-dest',
  'chmod',
  'chown',
  'filter',
  'files-from',
  'exclude-from',
  'include-from',
]);
/** Programs whose `-t DIR` is the folder the others land in. */
const TARGET_DIRECTORY = new Set(['cp', 'mv', 'ln', 'install']);
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
/** find's actions that run a program on what it found. */
const FIND_RUNS = new Set(['-exec', '-execdir', '-ok', '-okdir']);
const SHELLS = new Set(['sh', 'bash', 'dash', 'zsh', 'ksh', 'mksh', 'ash']);
/** Programs a wrapper's words are searched for. */
const RUNNABLE = new Set([...CREATORS, ...WRAPPERS, ...SHELLS, 'git', 'eval', 'find']);
/** Characters that separate paths inside a word (code, `--out=x`, `of=x`). */
const TOKEN_SEPARATORS = /[\s'"`(),;=:<>|&{}[\]]+/;
/** A last segment that reads as a file name (`x.ts`), not a folder. */
const FILE_NAME = /^[^.].*\.[A-Za-z0-9]{1,8}$/;
const MAX_DEPTH = 8;
/** The largest patch file read to see what it creates. */
const MAX_PATCH_BYTES = 1024 * 1024;
/** A repository address, not a path: `https://…`, `git@host:…`. */
const URL = /^[\w+.-]+:\/\/|^[^/\s]+@[^/\s]+:/;

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
  const finder = new Finder(options.root, options.readOnly, options.moduleRoots);
  const unclear = finder.line(run, options.cwd, 0);
  if (unclear !== undefined) return { unclear };
  // Paths are resolved before the line runs: a link it makes first (`ln -s src s && mkdir
  // s/x`) would lead the paths after it elsewhere.
  if (finder.links > 0 && finder.creations.length > finder.links) {
    return { unclear: 'it makes a link and creates more in the same line (run them as two calls)' };
  }
  return { creations: finder.creations };
}

class Finder {
  readonly creations: Creation[] = [];
  /** The creations that are links (`ln`). */
  links = 0;

  constructor(
    private readonly root: string,
    private readonly readOnly: readonly string[],
    private readonly moduleRoots: readonly string[],
  ) {}

  line(run: string | readonly string[], cwd: string, depth: number): string | undefined {
    const analysis = analyzeShell(run, { root: this.root, cwd, readOnly: this.readOnly });
    if (analysis.kind === 'analyzed') {
      for (const write of analysis.writes) {
        const problem = this.add(write.path, write.cwd, write.by === 'mkdir', write.by);
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
        const problem = this.add(redirect.target.value, redirect.cwd, false, redirect.operator);
        if (problem) return problem;
      }
      const problem = this.command(command, command.program, command.words, depth, false);
      if (problem) return problem;
    }
    return undefined;
  }

  /** Records a path; a relative one from a folder that cannot be known is unclear. */
  private add(path: string, cwd: PathBase | undefined, folder: boolean, by: string) {
    if (cwd === undefined && !isAbsolute(path)) {
      return `the command creates ${path} from a folder that cannot be known`;
    }
    const who = /^[<>&]/.test(by) ? `the redirection ${by}` : by;
    this.creations.push({ path, ...(cwd ? { cwd } : {}), folder, by: who });
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
    if (CREATORS.has(name) || name === 'git') {
      if (moreUnknown) return `${name} would be given words only known when it runs`;
      return name === 'git' ? this.git(words, command) : this.creator(name, words, command.cwd);
    }
    if (SHELLS.has(name)) return this.shell(name, words, command, depth);
    if (name === 'patch') {
      if (moreUnknown) return 'patch would be given words only known when it runs';
      return this.patchProgram(words, command);
    }
    if (name === 'eval') {
      if (!words.every((word) => word.literal)) return 'eval of words only known when it runs';
      if (command.cwd === undefined) return 'eval runs in a folder that is not known';
      return this.nested(words.map((word) => word.value).join(' '), command.cwd, depth);
    }
    if (WRAPPERS.has(name)) {
      const inner = words.findIndex((word) => word.literal && RUNNABLE.has(basename(word.value)));
      const before = inner === -1 ? words : words.slice(0, inner);
      const hidden = before.find((word) => !word.literal && !word.text.includes('='));
      if (hidden)
        return `\`${hidden.text}\` may be the program ${name} runs, only known when it runs`;
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
    return this.mentions(name, words, command.cwd);
  }

  /** A program known to read, used so (its writes recorded). */
  private onlyReads(program: ShellWord, words: readonly ShellWord[], command: ShellCommand) {
    if (command.cwd === undefined || !words.every((word) => word.literal)) return false;
    const argv = [program.value, ...words.map((word) => word.value)];
    const analysis = analyzeShell(argv, {
      root: this.root,
      cwd: command.cwd.lexical,
      readOnly: this.readOnly,
    });
    if (analysis.kind !== 'analyzed') return false;
    for (const write of analysis.writes) {
      this.creations.push({
        path: write.path,
        cwd: command.cwd,
        folder: write.by === 'mkdir',
        by: write.by,
      });
    }
    return true;
  }

  /** Any other program: the paths its words name (a word the shell expands under a module root is unclear). */
  private mentions(name: string, words: readonly ShellWord[], cwd: PathBase | undefined) {
    for (const word of words) {
      if (!word.literal) {
        const problem = this.expandedUnderRoot(word);
        if (problem) return problem;
      }
      for (const token of word.value.split(TOKEN_SEPARATORS)) {
        if (!token.includes('/')) continue;
        const last = token.replace(/\/+$/, '').split('/').at(-1) ?? '';
        const problem = this.add(token, cwd, !FILE_NAME.test(last), name);
        if (problem) return problem;
      }
    }
    return undefined;
  }

  private expandedUnderRoot(word: ShellWord): string | undefined {
    for (const root of this.moduleRoots) {
      const at = word.text.indexOf(`${root}/`);
      if (at === -1) continue;
      const segment = word.text.slice(at + root.length + 1).split('/')[0] ?? '';
      if (segment === '' || /[$`{*?[]/.test(segment)) {
        return `\`${word.text}\` is only known when the command runs, and may name a new folder under ${root}/`;
      }
    }
    return undefined;
  }

  /** mkdir, cp, mv, ln, install, touch, tee, truncate, rsync: every operand may be created. */
  private creator(name: string, words: readonly ShellWord[], cwd: PathBase | undefined) {
    const unknown = words.find((word) => !word.literal);
    if (unknown) {
      return `\`${unknown.text}\` is only known when the command runs (${name} would create it)`;
    }
    const { flags, operands, targetDirs } = readCreator(name, words);
    const isDir = (path: string) =>
      (cwd !== undefined || isAbsolute(path)) &&
      statSync(resolve(cwd?.physical ?? this.root, path), {
        throwIfNoEntry: false,
      })?.isDirectory() === true;
    const add = (path: string, folder: boolean) => this.add(path, cwd, folder, name);
    const problems: Array<string | undefined> = [];
    if (name === 'mkdir' || (name === 'install' && (flags.has('d') || flags.has('directory')))) {
      for (const operand of operands) problems.push(add(operand, true));
      return problems.find(Boolean);
    }
    if (name === 'touch' || name === 'tee' || name === 'truncate') {
      for (const operand of operands) problems.push(add(operand, false));
      return problems.find(Boolean);
    }
    // cp, mv, ln, install, rsync: any operand may be the destination, and any existing folder
    // among them may be where the others land, under their own names.
    const recursive = ['r', 'R', 'a', 'recursive', 'archive'].some((flag) => flags.has(flag));
    const linking = name === 'ln' || name === 'link' || (name === 'cp' && flags.has('s'));
    const before = this.creations.length;
    const whole = recursive || linking;
    const dirs = operands.filter(isDir);
    for (const operand of operands) {
      const folder = whole || operand.endsWith('/') || dirs.some((dir) => dir !== operand);
      problems.push(add(operand, folder));
    }
    for (const dir of [...dirs, ...targetDirs]) {
      for (const operand of operands) {
        if (operand === dir) continue;
        problems.push(add(join(dir, basename(operand)), whole || isDir(operand)));
      }
    }
    for (const dir of targetDirs) problems.push(add(dir, true));
    // `ln -s TARGET` alone links TARGET's name into the current folder.
    if (linking && operands.length === 1) problems.push(add(basename(operands[0] as string), true));
    if (linking) this.links += this.creations.length - before;
    return problems.find(Boolean);
  }

  /** `git mv` as mv; `clone`, `worktree`, `submodule`, `init` create the folders they name. */
  private git(words: readonly ShellWord[], command: ShellCommand): string | undefined {
    let i = 0;
    for (; i < words.length; i++) {
      const word = words[i] as ShellWord;
      if (!word.literal) return `\`git ${word.text}\` is only known when it runs`;
      if (!word.value.startsWith('-')) break;
      if (/^(-C|--git-dir|--work-tree)/.test(word.value)) {
        return `\`git ${word.value}\` runs git elsewhere; run it from the folder instead (cd)`;
      }
      if (word.value === '-c') i++;
    }
    const sub = words[i]?.value;
    const rest = words.slice(i + 1);
    if (sub === 'mv') return this.creator('mv', rest, command.cwd);
    if (sub === 'apply') {
      const unknown = rest.find((word) => !word.literal);
      if (unknown) return `\`${unknown.text}\` is only known when the command runs (git apply)`;
      const values = rest.map((word) => word.value);
      if (values.some((value) => value.startsWith('--directory'))) {
        return 'git apply --directory puts the patch elsewhere';
      }
      const files = values.filter((value) => !value.startsWith('-'));
      if (files.length === 0) return 'git apply reads its patch from a pipe the guard cannot see';
      // git applies paths from the top of the work tree: the project root.
      const root = { lexical: this.root, physical: this.root };
      for (const file of files) {
        const problem = this.patchFile(file, command.cwd, root, 'git apply');
        if (problem) return problem;
      }
      return undefined;
    }
    if (sub === 'clone' || sub === 'worktree' || sub === 'submodule' || sub === 'init') {
      const unknown = rest.find((word) => !word.literal);
      if (unknown) return `\`${unknown.text}\` is only known when the command runs (git ${sub})`;
      const given = rest.map((word) => word.value).filter((value) => !value.startsWith('-'));
      // `git worktree add PATH`, `git submodule add URL PATH`: the first word is the action.
      const operands = sub === 'worktree' || sub === 'submodule' ? given.slice(1) : given;
      for (const operand of operands.filter((value) => !URL.test(value))) {
        const problem = this.add(operand, command.cwd, true, `git ${sub}`);
        if (problem) return problem;
      }
      // `git clone URL` alone: the folder is named after the repository.
      const [only] = operands;
      if ((sub === 'clone' || sub === 'submodule') && operands.length === 1 && only) {
        const name = basename(only.replace(/\/+$/, '')).replace(/\.git$/, '');
        return this.add(name, command.cwd, true, `git ${sub}`);
      }
      return undefined;
    }
    return this.mentions('git', rest, command.cwd);
  }

  /** `patch [-i FILE | < FILE] [ORIGINAL]`: the files its patch names, from where it runs. */
  private patchProgram(words: readonly ShellWord[], command: ShellCommand) {
    const unknown = words.find((word) => !word.literal);
    if (unknown) return `\`${unknown.text}\` is only known when the command runs (patch)`;
    const files: string[] = [];
    const operands: string[] = [];
    for (let i = 0; i < words.length; i++) {
      const value = (words[i] as ShellWord).value;
      if (/^(-d|--directory)/.test(value)) return 'patch -d applies the patch elsewhere';
      if (value === '-i' || value === '--input') files.push(words[++i]?.value ?? '');
      else if (value.startsWith('--input=')) files.push(value.slice('--input='.length));
      else if (/^-i./.test(value)) files.push(value.slice(2));
      else if (value === '-o' || value === '--output') operands.push(words[++i]?.value ?? '');
      else if (/^-[pFBVYzrgD]$/.test(value)) i++;
      else if (!value.startsWith('-')) operands.push(value);
    }
    // `patch ORIGINAL PATCHFILE`: the second operand is the patch.
    if (operands.length > 1 && files.length === 0) files.push(operands.pop() as string);
    for (const redirect of command.redirects) {
      if (redirect.operator === '<' && redirect.target.literal) files.push(redirect.target.value);
    }
    if (files.length === 0) return 'patch reads its patch from a pipe the guard cannot see';
    for (const original of operands) {
      const problem = this.add(original, command.cwd, false, 'patch');
      if (problem) return problem;
    }
    for (const file of files) {
      const problem = this.patchFile(file, command.cwd, command.cwd, 'patch');
      if (problem) return problem;
    }
    return undefined;
  }

  /** The files a patch file names, from `base`; unclear when it cannot be read. */
  private patchFile(
    file: string,
    cwd: PathBase | undefined,
    base: PathBase | undefined,
    by: string,
  ): string | undefined {
    if (cwd === undefined && !isAbsolute(file))
      return `${by} reads ${file} from a folder that cannot be known`;
    let text: string;
    try {
      const path = resolve(cwd?.physical ?? this.root, file);
      const stats = statSync(path);
      if (!stats.isFile() || stats.size > MAX_PATCH_BYTES)
        return `${by}: ${file} is not a patch file the guard reads`;
      text = readFileSync(path, 'utf8');
    } catch {
      return `${by}: ${file} cannot be read`;
    }
    const patch = readPatch(text);
    if (patch.unknown) return `${by}: the patch in ${file} cannot be read: ${patch.unknown}`;
    if (patch.paths.length === 0) return `${by}: ${file} names no file`;
    for (const path of patch.paths) {
      const problem = this.add(path, base, false, by);
      if (problem) return problem;
    }
    return undefined;
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
    if (!code) return this.mentions(name, words, command.cwd);
    const text = words[i];
    if (text === undefined) return undefined;
    if (command.cwd === undefined) return `${name} -c runs in a folder that is not known`;
    return this.nested(text.value, command.cwd, depth);
  }

  private nested(code: string, cwd: PathBase, depth: number): string | undefined {
    if (depth >= MAX_DEPTH) return 'shells nested too deep';
    return this.line(code, cwd.lexical, depth + 1);
  }
}

/** A file command's options (by letter or long name), operands and `-t` folders. */
function readCreator(name: string, words: readonly ShellWord[]) {
  const flags = new Set<string>();
  const operands: string[] = [];
  const targetDirs: string[] = [];
  const valued = VALUED[name] ?? '';
  let onlyOperands = false;
  for (let i = 0; i < words.length; i++) {
    const text = (words[i] as ShellWord).value;
    if (onlyOperands || !text.startsWith('-') || text === '-') {
      operands.push(text);
      continue;
    }
    if (text === '--') {
      onlyOperands = true;
      continue;
    }
    if (text.startsWith('--')) {
      const equals = text.indexOf('=');
      const option = equals === -1 ? text.slice(2) : text.slice(2, equals);
      flags.add(option);
      let value: string | undefined;
      if (equals !== -1) value = text.slice(equals + 1);
      else if (LONG_VALUED.has(option)) value = words[++i]?.value;
      if (option === 'target-directory' && value !== undefined) targetDirs.push(value);
      continue;
    }
    for (let j = 1; j < text.length; j++) {
      const letter = text[j] as string;
      if (!valued.includes(letter)) {
        flags.add(letter);
        continue;
      }
      const value = j + 1 < text.length ? text.slice(j + 1) : words[++i]?.value;
      if (letter === 't' && TARGET_DIRECTORY.has(name) && value !== undefined)
        targetDirs.push(value);
      break;
    }
  }
  return { flags, operands, targetDirs };
}
