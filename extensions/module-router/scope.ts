import type { ShellCommand, ShellWord } from 'hermes-extensions/policy';

/** Argument names under which exploration tools take the folder they search. */
const SCOPE_KEYS = ['path', 'dir', 'directory', 'cwd', 'root', 'folder', 'target'];

/**
 * The folders an exploration tool call searches, from its arguments: an explicit folder, else a
 * glob's leading folder (`src/auth/**` → `src/auth`), else the whole tree (`.`).
 */
export function toolScopes(args: Readonly<Record<string, unknown>>): string[] {
  for (const key of SCOPE_KEYS) {
    const value = args[key];
    if (typeof value === 'string' && value.trim() !== '') return [value];
    if (Array.isArray(value) && value.length > 0) return value.map(String);
  }
  const pattern = args.pattern ?? args.glob;
  if (typeof pattern === 'string' && /[*?[]/.test(pattern)) return [globBase(pattern)];
  return ['.'];
}

/**
 * The folders a shell command searches or lists recursively, or undefined when it does not.
 * A folder only known when the command runs (`"$PWD"`, `$(pwd)`) is `undefined` in the list:
 * the caller takes it for the whole tree; a glob counts as the folder it starts in (`*` → `.`).
 */
export function shellScopes(command: ShellCommand): Array<string | undefined> | undefined {
  const { name, words } = command;
  const flags = words.filter((w) => w.literal && w.mayBeOption).map((w) => w.value);
  const operands = operandsOf(words);
  const withDefault = (paths: ShellWord[]) => (paths.length > 0 ? paths.map(scopeOf) : ['.']);
  switch (name) {
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
      const patternGiven = flags.some(
        (f) => /^-[a-zA-Z]*[ef]/.test(f) || /^--(regexp|file)/.test(f),
      );
      return withDefault(patternGiven ? operands : operands.slice(1));
    }
    case 'rg':
    case 'ag':
    case 'ack': {
      const patternGiven = flags.some(
        (f) => /^-[a-zA-Z]*[ef]/.test(f) || /^--(regexp|file|files)/.test(f),
      );
      return withDefault(patternGiven ? operands : operands.slice(1));
    }
    case 'find':
      return withDefault(leadingOperands(words));
    case 'fd':
      return withDefault(operands.slice(1));
    case 'tree':
    case 'du':
      return withDefault(operands);
    case 'ls':
      if (!flags.some((f) => /^-[a-zA-Z]*R/.test(f) || f === '--recursive')) return undefined;
      return withDefault(operands);
    case 'git': {
      const sub = operands[0];
      if (!sub?.literal || !['grep', 'ls-files', 'ls-tree'].includes(sub.value)) return undefined;
      const dashes = words.findIndex((w) => w.literal && w.value === '--');
      if (dashes !== -1) return withDefault(words.slice(dashes + 1));
      // Without `--`, what follows the pattern may be revisions or paths: the whole tree.
      return ['.'];
    }
    default:
      return undefined;
  }
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
