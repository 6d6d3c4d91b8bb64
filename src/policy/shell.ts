import { basename } from 'node:path';
import { parse, quote } from 'shell-quote';

/** One simple command of a shell line: its program and arguments as the shell would pass them. */
export interface ShellCommand {
  name: string;
  args: string[];
}

/**
 * What a shell line does to files, as far as can be told without running it: the commands it
 * runs and the paths it would write. `opaque` when it cannot be told (command substitution,
 * variables, brace expansion, an interpreter running code, a program not known to be read-only):
 * a guard treats that as writing anything.
 */
export type ShellAnalysis =
  | { kind: 'analyzed'; commands: ShellCommand[]; writes: string[] }
  | { kind: 'opaque'; reason: string };

const SEPARATORS = new Set([';', '&&', '||', '|', '&', '|&', ';;', '(', ')']);
const WRITE_REDIRECTS = new Set(['>', '>>', '&>', '>|', '&>>', '>&']);
const READ_REDIRECTS = new Set(['<', '<<', '<<<', '<&']);
const DEVICES = new Set(['/dev/null', '/dev/stdout', '/dev/stderr', '/dev/tty']);
const SHELLS = new Set(['bash', 'sh', 'zsh', 'dash', 'ksh', 'fish']);
/** Programs that run the rest of the line as a command. */
const WRAPPERS = new Set(['sudo', 'nice', 'nohup', 'time', 'command', 'exec', 'builtin', 'stdbuf']);

/** Programs that never write files (given as they are; some writers below read-only unless flagged). */
export const READ_ONLY_COMMANDS: readonly string[] = [
  'ls',
  'cat',
  'head',
  'tail',
  'less',
  'more',
  'grep',
  'egrep',
  'fgrep',
  'rg',
  'ag',
  'ack',
  'wc',
  'cut',
  'tr',
  'nl',
  'diff',
  'cmp',
  'comm',
  'file',
  'stat',
  'du',
  'df',
  'pwd',
  'echo',
  'printf',
  'true',
  'false',
  'test',
  '[',
  'which',
  'type',
  'whereis',
  'printenv',
  'date',
  'whoami',
  'id',
  'uname',
  'hostname',
  'tree',
  'realpath',
  'readlink',
  'basename',
  'dirname',
  'jq',
  'cd',
  'pushd',
  'popd',
  'sleep',
  'seq',
  'column',
  'fold',
  'fmt',
  'paste',
  'join',
  'md5sum',
  'sha1sum',
  'sha256sum',
  'cksum',
  'od',
  'strings',
  'ps',
  'fd',
  'rev',
  'expand',
  'look',
];

type Writer = (args: string[]) => string[] | string;

const operands = (args: string[]) => {
  const end = args.indexOf('--');
  const before = end === -1 ? args : args.slice(0, end);
  const after = end === -1 ? [] : args.slice(end + 1);
  return [...before.filter((a) => !a.startsWith('-') || a === '-'), ...after];
};
const optionValue = (args: string[], short: string, long: string) => {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (arg === short || arg === long) return args[i + 1];
    if (arg.startsWith(`${long}=`)) return arg.slice(long.length + 1);
    if (arg.startsWith(short) && arg.length > short.length && !arg.startsWith('--')) {
      return arg.slice(short.length);
    }
  }
  return undefined;
};
/** `cp`/`ln`/`install`: the destination (`-t DIR`, or the last operand). */
const destination: Writer = (args) => {
  const target = optionValue(args, '-t', '--target-directory');
  if (target !== undefined) return [target];
  const ops = operands(args);
  return ops.length > 0 ? [ops[ops.length - 1] as string] : 'no destination';
};

/** Programs that write, and what they write given their arguments (or why it cannot be told). */
const WRITERS: Readonly<Record<string, Writer>> = {
  touch: operands,
  mkdir: operands,
  rm: operands,
  rmdir: operands,
  unlink: operands,
  shred: operands,
  tee: operands,
  truncate: (args) => operands(args.filter((_, i) => args[i - 1] !== '-s')),
  cp: destination,
  ln: destination,
  install: (args) =>
    destination(args.filter((_, i) => !['-m', '-o', '-g'].includes(args[i - 1] ?? ''))),
  // A move writes where it moves to and removes what it moves.
  mv: (args) => {
    const target = optionValue(args, '-t', '--target-directory');
    return target === undefined ? operands(args) : [target, ...operands(args)];
  },
  chmod: (args) => operands(args).slice(1),
  chown: (args) => operands(args).slice(1),
  chgrp: (args) => operands(args).slice(1),
  dd: (args) => args.filter((a) => a.startsWith('of=')).map((a) => a.slice(3)),
  sed: (args) => {
    if (!args.some((a) => a === '-i' || a.startsWith('-i') || a.startsWith('--in-place')))
      return [];
    const scripted = args.some((a) => a === '-e' || a === '-f' || a.startsWith('--expression'));
    const ops = operands(args.filter((_, i) => !['-e', '-f'].includes(args[i - 1] ?? '')));
    return scripted ? ops : ops.slice(1);
  },
  sort: (args) => {
    const output = optionValue(args, '-o', '--output');
    return output === undefined ? [] : [output];
  },
  uniq: (args) => operands(args).slice(1, 2),
  find: (args) =>
    args.some((a) => /^-(delete|exec|execdir|ok|okdir|fprint0?|fprintf|fls)$/.test(a))
      ? 'find with an action that runs or writes'
      : [],
  awk: (args) =>
    args.some((a) => /system\(|print[^;]*>|getline/.test(a))
      ? 'awk code that writes or runs commands'
      : [],
  git: (args) => {
    const sub = args.find((a) => !a.startsWith('-'));
    const readOnly = [
      'status',
      'log',
      'diff',
      'show',
      'rev-parse',
      'ls-files',
      'grep',
      'blame',
      'describe',
      'shortlog',
      'cat-file',
      'ls-tree',
    ];
    return sub !== undefined && readOnly.includes(sub)
      ? []
      : `git ${sub ?? ''} changes the working tree or the repository`;
  },
};

/** Analyses a shell line. `readOnly` adds program names to READ_ONLY_COMMANDS. */
export function analyzeShell(line: string, readOnly: readonly string[] = []): ShellAnalysis {
  if (/`|\$\(|<\(|>\(/.test(line)) return opaque('command or process substitution');
  let tokens: ReturnType<typeof parse>;
  try {
    tokens = parse(line, (name) => `$${name}`);
  } catch (error) {
    return opaque(`cannot parse the command (${(error as Error).message})`);
  }
  const readOnlyNames = new Set([...READ_ONLY_COMMANDS, ...readOnly]);
  const commands: ShellCommand[] = [];
  const writes: string[] = [];
  let words: string[] = [];
  const finish = (): string | undefined => {
    const problem = classify(words, readOnlyNames, commands, writes);
    words = [];
    return problem;
  };
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i];
    if (typeof token === 'string') {
      words.push(token);
      continue;
    }
    if (token === undefined || 'comment' in token) break;
    if ('pattern' in token) {
      words.push(token.pattern);
      continue;
    }
    const { op } = token as { op: string };
    if (WRITE_REDIRECTS.has(op) || READ_REDIRECTS.has(op)) {
      // `2>`: the digit is a file descriptor, not an argument.
      if (/^\d+$/.test(words[words.length - 1] ?? '')) words.pop();
      const target = tokens[++i];
      const path = typeof target === 'string' ? target : (target as { pattern?: string })?.pattern;
      if (path === undefined) return opaque(`a redirection without a file`);
      if (WRITE_REDIRECTS.has(op) && !DEVICES.has(path) && !/^\d+$/.test(path)) {
        const problem = unsafeWord(path);
        if (problem) return opaque(problem);
        writes.push(path);
      }
      continue;
    }
    if (SEPARATORS.has(op)) {
      const problem = finish();
      if (problem) return opaque(problem);
      continue;
    }
    return opaque(`the shell operator ${op}`);
  }
  const problem = finish();
  return problem ? opaque(problem) : { kind: 'analyzed', commands, writes };
}

function classify(
  rawWords: string[],
  readOnly: ReadonlySet<string>,
  commands: ShellCommand[],
  writes: string[],
): string | undefined {
  const words = unwrap(rawWords);
  if (words.length === 0) return undefined;
  for (const word of words) {
    const problem = unsafeWord(word);
    if (problem) return problem;
  }
  const name = basename(words[0] as string);
  const args = words.slice(1);
  commands.push({ name, args });
  if (SHELLS.has(name)) {
    const code = optionValue(args, '-c', '--command');
    if (code === undefined) return `${name} running a script`;
    const inner = analyzeShell(code, [...readOnly]);
    if (inner.kind === 'opaque') return inner.reason;
    commands.push(...inner.commands);
    writes.push(...inner.writes);
    return undefined;
  }
  const writer = WRITERS[name];
  if (writer) {
    const targets = writer(args);
    if (typeof targets === 'string') return targets;
    writes.push(...targets);
    return undefined;
  }
  if (readOnly.has(name)) return undefined;
  return `cannot tell what "${name}" writes`;
}

/** Drops leading `NAME=value` assignments and wrappers such as `sudo`, `env`, `timeout 5`. */
function unwrap(words: string[]): string[] {
  let i = 0;
  for (;;) {
    const word = words[i];
    if (word === undefined) return [];
    if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(word)) i++;
    else if (WRAPPERS.has(word)) i++;
    else if (word === 'env') i++;
    else if (word === 'timeout') i += 2;
    else if (i > 0 && word.startsWith('-') && ['env', 'sudo', 'nice'].includes(words[i - 1] ?? ''))
      i++;
    else return words.slice(i);
  }
}

/** Words whose meaning the shell decides at run time. */
function unsafeWord(word: string): string | undefined {
  if (word.includes('$')) return `the variable in "${word}"`;
  if (/\{[^}]*(,|\.\.)[^}]*\}/.test(word)) return `the brace expansion in "${word}"`;
  return undefined;
}

function opaque(reason: string): ShellAnalysis {
  return { kind: 'opaque', reason };
}

/** The command line of a shell tool call, under the argument names shell tools use. */
export function shellCommandOf(args: Readonly<Record<string, unknown>>): string | undefined {
  for (const key of ['command', 'cmd', 'script', 'input', 'code']) {
    const value = args[key];
    if (typeof value === 'string') return value;
    // An argv array, quoted back into one line so `['sh', '-c', 'rm -rf src']` stays one argument.
    if (Array.isArray(value) && value.every((v) => typeof v === 'string')) return quote(value);
  }
  return undefined;
}
