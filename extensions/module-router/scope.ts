import type { ShellCommand } from 'hermes-extensions';

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

/** Recursive search commands of a shell line and the folders they search (`.` when none given). */
export function shellScopes(command: ShellCommand): string[] | undefined {
  const { name, args } = command;
  const operands = args.filter((a) => !a.startsWith('-'));
  switch (name) {
    case 'grep':
    case 'egrep':
    case 'fgrep': {
      if (!args.some((a) => /^-[a-zA-Z]*[rR]/.test(a) || a === '--recursive')) return undefined;
      const patternGiven = args.some((a) => a === '-e' || a.startsWith('--regexp'));
      const paths = patternGiven ? operands : operands.slice(1);
      return paths.length > 0 ? paths : ['.'];
    }
    case 'rg':
    case 'ag':
    case 'ack': {
      const paths = operands.slice(1);
      return paths.length > 0 ? paths : ['.'];
    }
    case 'find':
    case 'fd':
    case 'tree': {
      const paths = name === 'find' ? leadingOperands(args) : operands.slice(name === 'fd' ? 1 : 0);
      return paths.length > 0 ? paths : ['.'];
    }
    case 'ls':
      if (!args.some((a) => /^-[a-zA-Z]*R/.test(a) || a === '--recursive')) return undefined;
      return operands.length > 0 ? operands : ['.'];
    default:
      return undefined;
  }
}

/** `find`'s start points: the arguments before its first expression. */
function leadingOperands(args: string[]): string[] {
  const paths: string[] = [];
  for (const arg of args) {
    if (arg.startsWith('-') || arg === '(' || arg === '!') break;
    paths.push(arg);
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
