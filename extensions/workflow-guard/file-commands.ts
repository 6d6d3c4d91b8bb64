import { readdirSync, statSync } from 'node:fs';
import { basename, isAbsolute, join, resolve } from 'node:path';
import type { PathBase, ShellWord } from 'hermes-extensions/policy';
import type { CreationLog } from './creation-log.js';

/**
 * The programs that create the paths they name, read by their operands. Their options are read
 * only as far as needed to find the operands: unlike the allowlists of `READ_ONLY_COMMANDS`
 * (which refuse an option they do not know), an unknown option here is taken as a flag, since
 * every operand is counted as created anyway.
 */
export const FILE_COMMANDS: ReadonlySet<string> = new Set([
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

/** mkdir, cp, mv, ln, install, touch, tee, truncate, rsync: every operand may be created. */
export function fileCommandCreations(
  log: CreationLog,
  name: string,
  words: readonly ShellWord[],
  cwd: PathBase | undefined,
): string | undefined {
  const unknown = words.find((word) => !word.literal);
  if (unknown) {
    return `\`${unknown.text}\` is only known when the command runs (${name} would create it)`;
  }
  const { flags, operands, targetDirs } = readFileCommand(name, words);
  const isDir = (path: string) =>
    (cwd !== undefined || isAbsolute(path)) &&
    statSync(resolve(cwd?.physical ?? log.root, path), {
      throwIfNoEntry: false,
    })?.isDirectory() === true;
  const add = (path: string, folder: boolean) => log.add(path, cwd, folder, name);
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
  const before = log.creations.length;
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
  // `cp --parents a/b/f src`, `rsync -R a/b src`: the source's whole path lands in the folder.
  const parents =
    (name === 'cp' && flags.has('parents')) ||
    (name === 'rsync' && (flags.has('R') || flags.has('relative')));
  if (parents) {
    for (const dir of [...dirs, ...targetDirs]) {
      for (const operand of operands)
        if (operand !== dir) problems.push(add(join(dir, operand), true));
    }
  }
  for (const dir of targetDirs) problems.push(add(dir, true));
  problems.push(...contentCreations(name, flags, operands, isDir, add, cwd?.physical ?? log.root));
  // `ln -s TARGET` alone links TARGET's name into the current folder.
  if (linking && operands.length === 1) problems.push(add(basename(operands[0] as string), true));
  if (linking) log.links += log.creations.length - before;
  return problems.find(Boolean);
}

/** More entries than this in a folder whose content a command copies: not read, unclear. */
const MAX_CONTENT = 1000;

/**
 * `cp -r handoff/. src`, `rsync -a handoff/ src`, `cp -rT handoff src`: what lands in the other
 * operands is the folder's content, not the folder, so each of its entries may be created there
 * under its own name (read from the disk now). A folder too large to read is unclear.
 */
function contentCreations(
  name: string,
  flags: ReadonlySet<string>,
  operands: readonly string[],
  isDir: (path: string) => boolean,
  add: (path: string, folder: boolean) => string | undefined,
  from: string,
): Array<string | undefined> {
  const noTarget = flags.has('T') || flags.has('no-target-directory');
  const spills = (operand: string) =>
    isDir(operand) &&
    (noTarget || basename(operand) === '.' || (name === 'rsync' && operand.endsWith('/')));
  const problems: Array<string | undefined> = [];
  for (const source of operands.filter(spills)) {
    let entries: string[];
    try {
      entries = readdirSync(resolve(from, source));
    } catch {
      return [`${name} copies the content of ${source}, which cannot be read`];
    }
    if (entries.length > MAX_CONTENT) {
      return [`${name} copies the content of ${source}, over ${MAX_CONTENT} entries`];
    }
    for (const destination of operands) {
      if (destination === source) continue;
      for (const entry of entries) {
        problems.push(add(join(destination, entry), isDir(join(source, entry))));
      }
    }
  }
  return problems;
}

/** A file command's options (by letter or long name), operands and `-t` folders. */
function readFileCommand(name: string, words: readonly ShellWord[]) {
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
