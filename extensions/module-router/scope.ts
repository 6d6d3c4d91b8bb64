import {
  programName,
  type RunCommand,
  type ShellCommand,
  type ShellWord,
} from 'hermes-extensions/policy';

/** Argument names under which exploration tools take the folder they search. */
const SCOPE_KEYS = [
  'path',
  'paths',
  'dir',
  'directory',
  'dir_path',
  'cwd',
  'root',
  'folder',
  'target',
  'target_directory',
  'relative_workspace_path',
  'search_path',
];
/** Argument names under which they take a glob of files, relative to that folder. */
const GLOB_KEYS = ['glob', 'glob_pattern', 'include', 'include_pattern', 'file_pattern'];

/**
 * The folders an exploration tool call searches, from its arguments: the folders it names (a
 * glob there counts as the folder it starts in), each also with its glob's leading folders added
 * (`path: src/auth`, `glob: ../**` → `src/auth` and `src/auth/..`: a glob may climb out), else a
 * glob's leading folders alone (`src/auth/**` → `src/auth`), else the whole tree (`.`). A
 * `pattern` is a glob only for a tool named for globs; elsewhere it is what is searched for.
 */
export function toolScopes(tool: string, args: Readonly<Record<string, unknown>>): string[] {
  let folders: string[] = [];
  for (const key of SCOPE_KEYS) {
    const value = args[key];
    if (typeof value === 'string' && value.trim() !== '') folders = [value];
    else if (Array.isArray(value) && value.length > 0) folders = value.map(String);
    else continue;
    break;
  }
  const keys = /glob/i.test(tool) ? [...GLOB_KEYS, 'pattern'] : GLOB_KEYS;
  const glob = keys
    .map((key) => args[key])
    .find((value): value is string => typeof value === 'string' && isGlobPath(value));
  if (folders.length === 0) return [glob === undefined ? '.' : globBase(glob)];
  const bases = folders.map((folder) => (/[*?[{]/.test(folder) ? globBase(folder) : folder));
  if (glob === undefined) return bases;
  const start = globBase(glob);
  return [...bases, ...bases.map((base) => (start.startsWith('/') ? start : `${base}/${start}`))];
}

/** A glob of paths, not a search pattern: it has wildcards, or climbs (`../x`). */
function isGlobPath(value: string): boolean {
  return /[*?[{]/.test(value) || /^\.\.(\/|$)/.test(value) || value.startsWith('/');
}

/** Programs that search what they are given: given words only known when they run, anything. */
const SEARCHERS = new Set(['grep', 'egrep', 'fgrep', 'rgrep', 'rg', 'ag', 'ack', 'ack-grep']);

/**
 * The folders a command searches or lists across, or undefined when it does not: a recursive
 * search or listing (`grep -r`, `rg`, `find`, `ls -R`, `git grep`, `git log --name-only`, …) and
 * any glob whose wildcards stand in a folder's name (`cat packages/*\/src/*.ts` reads across the
 * folders of `packages`). A folder only known when the command runs (`"$PWD"`, `$(pwd)`, words
 * `xargs` adds) is `undefined` in the list; a glob counts as the folder it starts in.
 */
export function commandScopes(run: RunCommand): Array<string | undefined> | undefined {
  const name = programName(run.command);
  const searched = name === undefined ? undefined : shellScopes(name, run.command);
  const spanning = run.command.words
    .filter((word) => word.pattern && /[*?[{][^/]*\//.test(word.value))
    .map((word) => globBase(word.value));
  const unknown =
    run.moreUnknown && (searched !== undefined || (name !== undefined && SEARCHERS.has(name)))
      ? [undefined]
      : [];
  const all = [...(searched ?? []), ...spanning, ...unknown];
  return all.length === 0 ? undefined : all;
}

function shellScopes(name: string, command: ShellCommand): Array<string | undefined> | undefined {
  const { words } = command;
  const flags = words.filter((w) => w.literal && w.mayBeOption).map((w) => w.value);
  const operands = operandsOf(words);
  const withDefault = (paths: ShellWord[]) => (paths.length > 0 ? paths.map(scopeOf) : ['.']);
  switch (name) {
    case 'rgrep':
      return withDefault(patternGiven(flags) ? operands : operands.slice(1));
    case 'grep':
    case 'egrep':
    case 'fgrep': {
      const recursive =
        flags.some(
          (f) =>
            /^-[a-zA-Z]*[rR]/.test(f) ||
            f === '--recursive' ||
            f === '--dereference-recursive' ||
            f === '--directories=recurse' ||
            /^-[a-zA-Z]*drecurse$/.test(f),
        ) ||
        // `-d recurse`, `--directories recurse`
        words.some(
          (w, i) =>
            w.literal &&
            /^(-[a-zA-Z]*d|--directories)$/.test(w.value) &&
            words[i + 1]?.value === 'recurse',
        );
      if (!recursive) return undefined;
      return withDefault(patternGiven(flags) ? operands : operands.slice(1));
    }
    case 'rg':
    case 'ag':
    case 'ack':
    case 'ack-grep': {
      const given = patternGiven(flags) || flags.some((f) => /^--files/.test(f));
      return withDefault(given ? operands : operands.slice(1));
    }
    case 'find':
      return withDefault(leadingOperands(words));
    case 'fd':
    case 'fdfind':
      return withDefault(operands.slice(1));
    case 'locate':
    case 'plocate':
    case 'mlocate':
      // Searches a database of every file on the machine.
      return ['.'];
    case 'tree':
    case 'du':
      return withDefault(operands);
    case 'ls':
    case 'dir':
    case 'vdir':
      if (!flags.some((f) => /^-[a-zA-Z]*R/.test(f) || f === '--recursive')) return undefined;
      return withDefault(operands);
    case 'git':
      return gitScopes(words);
    default:
      return undefined;
  }
}

const patternGiven = (flags: readonly string[]) =>
  flags.some((f) => /^-[a-zA-Z]*[ef]/.test(f) || /^--(regexp|file)/.test(f));

/** git's options before the subcommand that take a value of their own (`-c NAME=VALUE`). */
const GIT_VALUED = new Set(['-c', '--config-env', '--namespace', '--super-prefix']);
/** …and those that send git to another folder or repository: where it searches is not known. */
const GIT_ELSEWHERE = new Set(['-C', '--git-dir', '--work-tree']);
/** `git log`/`show` options that print the files each commit touched, or search their text. */
const LISTS_FILES =
  /^(--name-only|--name-status|--stat|--numstat|--raw|--summary|--dirstat|--compact-summary|-p|-u|--patch|--patch-with-stat|--patch-with-raw|-S|-G|--pickaxe-regex|--pickaxe-all|--find-object)(=|$)|^-[SG]./;

/**
 * The pathspec of a git command that searches or lists files across the tree: `grep`,
 * `ls-files`, `ls-tree`, `whatchanged`, and `log`/`show` with an option that prints file names or
 * searches changes. Paths count only after `--` (before it they may be revisions): else the
 * whole tree. A global option that sends git elsewhere leaves the place unknown.
 */
function gitScopes(words: readonly ShellWord[]): Array<string | undefined> | undefined {
  let i = 0;
  for (; i < words.length; i++) {
    const word = words[i] as ShellWord;
    if (!word.mayBeOption) break;
    if (!word.literal) return [undefined];
    const option = word.value.split('=')[0] as string;
    if (GIT_ELSEWHERE.has(option) || /^-C./.test(word.value)) return [undefined];
    if (GIT_VALUED.has(word.value)) i++;
  }
  const sub = words[i];
  if (sub === undefined) return undefined;
  if (!sub.literal) return [undefined];
  const rest = words.slice(i + 1);
  const searches =
    ['grep', 'ls-files', 'ls-tree', 'whatchanged'].includes(sub.value) ||
    (['log', 'show'].includes(sub.value) &&
      rest.some((w) => !w.literal || LISTS_FILES.test(w.value)));
  if (!searches) return undefined;
  const dashes = rest.findIndex((w) => w.literal && w.value === '--');
  if (dashes !== -1 && dashes < rest.length - 1) return rest.slice(dashes + 1).map(scopeOf);
  return ['.'];
}

/** The words that are not options (nor the value of `-e`, `-f`, `-d`-style options). */
function operandsOf(words: readonly ShellWord[]): ShellWord[] {
  const operands: ShellWord[] = [];
  for (let i = 0; i < words.length; i++) {
    const word = words[i] as ShellWord;
    if (word.literal && word.value === '--') {
      operands.push(...words.slice(i + 1));
      break;
    }
    if (word.mayBeOption) {
      // `-e PATTERN`, `-d recurse`, `--regexp PATTERN`: the next word is the option's value.
      if (
        word.literal &&
        /^(-[a-zA-Z]*[efdgtTmABC]|--(regexp|file|directories|glob|type))$/.test(word.value)
      )
        i++;
      continue;
    }
    operands.push(word);
  }
  return operands;
}

function scopeOf(word: ShellWord): string | undefined {
  if (word.literal) return word.value;
  return word.pattern ? globBase(word.value) : undefined;
}

/** `find`'s start points: the words before its first expression. */
function leadingOperands(words: readonly ShellWord[]): ShellWord[] {
  const paths: ShellWord[] = [];
  for (const word of words) {
    if (word.mayBeOption || (word.literal && ['(', '!'].includes(word.value))) break;
    paths.push(word);
  }
  return paths;
}

function globBase(pattern: string): string {
  const parts = pattern.split('/');
  const fixed: string[] = [];
  for (const part of parts) {
    if (/[*?[{]/.test(part)) break;
    fixed.push(part);
  }
  return fixed.length === 0 ? '.' : fixed.join('/');
}
