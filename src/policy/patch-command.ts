import { readFileSync, statSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { type PatchReading, type PatchTargets, readPatch } from './patch.js';
import type { ShellCommand, ShellCwd } from './shell/script.js';
import type { ShellWord } from './shell/words.js';

/**
 * What a `patch` or `git apply` command applies, read from its words: which patch files, with
 * which strip level, from which folder. The same patch writes other files under another `-p` or
 * `--directory` (`patch -p0` writes `a/x` as named, `git apply --directory=.hermes` puts every
 * file under `.hermes/`), so its paths are read with them; an option not known here is not
 * understood, and the command is then judged as one that cannot be read.
 */
export interface PatchCommand {
  /** The patch files it reads, absolute (`-i`, `< FILE`, git apply's operands). */
  files: string[];
  /** Files it writes by name besides the patch's (`patch ORIGINAL`, `-o FILE`), absolute. */
  named: string[];
  reading: PatchReading;
  /** The folder the patch's names land from, absolute. */
  base: string;
  /** Why what it writes cannot be read from its words; the rest is then incomplete. */
  unknown?: string;
}

/** The largest patch file read to see what it writes. */
export const MAX_PATCH_BYTES = 1024 * 1024;

/** GNU patch's options that take a value (short, and long without `=`). */
const PATCH_VALUED = new Set('pdiorDFBVYzgx'.split(''));
const PATCH_LONG_VALUED =
  /^--(strip|directory|input|output|reject-file|ifdef|fuzz|prefix|version-control|basename-prefix|suffix|get|quoting-style|reject-format|debug|read-only)$/;
/** GNU patch's options that take none. */
const PATCH_FLAGS = new Set('bceEflnNRstTuv'.split(''));
const PATCH_LONG_FLAGS =
  /^--(backup|context|ed|remove-empty-files|force|ignore-whitespace|batch|normal|forward|dry-run|posix|reverse|silent|quiet|set-time|set-utc|unified|verbose|binary|follow-symlinks|backup-if-mismatch|no-backup-if-mismatch|merge(=\w+)?|help|version)$/;

/** `git apply`'s options that take no value, or take it after `=`. */
const GIT_APPLY_FLAGS =
  /^(--(stat|numstat|summary|check|index|cached|intent-to-add|3way|reverse|reject|unidiff-zero|apply|no-add|allow-binary-replacement|binary|ignore-space-change|ignore-whitespace|inaccurate-eof|verbose|quiet|recount|unsafe-paths|allow-empty|(exclude|include|whitespace|build-fake-ancestor)=.*)|-[N3Rzvq]+|-C\d+)$/;

/**
 * `patch [OPTIONS] [ORIGINAL [PATCHFILE]]` (GNU patch) run in `cwd`: without `-p`, GNU patch
 * takes a name's base name; `-d DIR` runs it from DIR (its `-i` file read there too).
 */
export function patchCommand(
  command: ShellCommand,
  words: readonly ShellWord[],
  cwd: ShellCwd,
): PatchCommand {
  const fail = (unknown: string): PatchCommand => ({
    files: [],
    named: [],
    reading: { strip: 'base' },
    base: cwd.physical,
    unknown,
  });
  const variable = words.find((word) => !word.literal);
  if (variable) return fail(`\`${variable.text}\` is only known when the command runs (patch)`);
  let strip: number | undefined;
  let directory: string | undefined;
  const inputs: string[] = [];
  const operands: string[] = [];
  const outputs: string[] = [];
  const take = (option: string, value: string | undefined): string | undefined => {
    if (value === undefined) return `patch ${option} has no value`;
    if (option === 'p' || option === '--strip') {
      if (!/^\d+$/.test(value)) return `patch -p ${value} is not a number`;
      strip = Number(value);
    } else if (option === 'd' || option === '--directory') directory = value;
    else if (option === 'i' || option === '--input') inputs.push(value);
    else if (option === 'o' || option === '--output') outputs.push(value);
    else if (option === 'e') return 'patch -e applies an ed script, which names no file';
    return undefined;
  };
  for (let i = 0; i < words.length; i++) {
    const value = words[i]?.value as string;
    if (value === '--') {
      operands.push(...words.slice(i + 1).map((word) => word.value));
      break;
    }
    if (value.startsWith('--')) {
      const [name, given] = value.includes('=')
        ? [value.slice(0, value.indexOf('=')), value.slice(value.indexOf('=') + 1)]
        : [value, undefined];
      if (name === '--ed') return fail('patch --ed applies an ed script, which names no file');
      if (PATCH_LONG_VALUED.test(name)) {
        const problem = take(name, given ?? words[++i]?.value);
        if (problem) return fail(problem);
      } else if (!PATCH_LONG_FLAGS.test(value)) return fail(`patch ${value} is not understood`);
      continue;
    }
    if (value.startsWith('-') && value !== '-') {
      // A cluster of short options, the last of which may take the rest as its value.
      for (let at = 1; at < value.length; at++) {
        const letter = value[at] as string;
        if (PATCH_VALUED.has(letter)) {
          const rest = value.slice(at + 1);
          const problem = take(letter, rest === '' ? words[++i]?.value : rest);
          if (problem) return fail(problem);
          break;
        }
        if (letter === 'e') return fail('patch -e applies an ed script, which names no file');
        if (!PATCH_FLAGS.has(letter)) return fail(`patch -${letter} is not understood`);
      }
      continue;
    }
    operands.push(value);
  }
  const base = directory === undefined ? cwd.physical : resolve(cwd.physical, directory);
  // It writes nothing: it only says its version or help, or tries the patch (`--dry-run`).
  if (words.some((word) => /^(--version|--help|--dry-run|-v)$/.test(word.value)))
    return { files: [], named: [], reading: { strip: strip ?? 'base' }, base };
  // `patch ORIGINAL PATCHFILE`: the second operand is the patch (read from DIR, as -i is).
  if (operands.length > 1 && inputs.length === 0) inputs.push(operands.pop() as string);
  const files = [...inputs.map((file) => resolve(base, file)), ...redirectedInputs(command, cwd)];
  const named = [...operands, ...outputs].map((file) => resolve(base, file));
  const reading: PatchReading = { strip: strip ?? 'base' };
  if (files.length === 0)
    return { ...fail('patch reads its patch from a pipe the guard cannot see'), named };
  return { files, named, reading, base };
}

/**
 * `git apply [OPTIONS] [PATCH…]`: names land from the top of the work tree (`root`), less one
 * folder (`-p1`) unless `-p` says otherwise, under `--directory=DIR` when given.
 */
export function gitApplyCommand(
  command: ShellCommand,
  words: readonly string[],
  cwd: ShellCwd,
  root: string,
): PatchCommand {
  let strip = 1;
  let directory: string | undefined;
  const files: string[] = [];
  const fail = (unknown: string): PatchCommand => ({
    files: [],
    named: [],
    reading: { strip },
    base: root,
    unknown,
  });
  for (let i = 0; i < words.length; i++) {
    const value = words[i] as string;
    const strip_ = /^-p(\d*)$/.exec(value);
    if (strip_) {
      const given = strip_[1] === '' ? words[++i] : strip_[1];
      if (given === undefined || !/^\d+$/.test(given))
        return fail(`git apply ${value} needs a number`);
      strip = Number(given);
    } else if (value === '--directory' || value.startsWith('--directory=')) {
      directory = value.includes('=') ? value.slice(value.indexOf('=') + 1) : words[++i];
      if (directory === undefined) return fail('git apply --directory has no value');
    } else if (value === '--') files.push(...words.slice(i + 1));
    else if (value.startsWith('-') && value !== '-') {
      if (!GIT_APPLY_FLAGS.test(value)) return fail(`git apply ${value} is not understood`);
    } else files.push(value);
    if (value === '--') break;
  }
  const all = [
    ...files.filter((file) => file !== '-').map((file) => resolve(cwd.physical, file)),
    ...redirectedInputs(command, cwd),
  ];
  // `--directory` names a folder from the top of the work tree, whatever the command's folder.
  const base = directory === undefined ? root : resolve(root, directory);
  // It writes nothing: it only reports on the patch (`--stat`, `--check`…) unless `--apply`.
  const reports = words.some((word) => /^--(stat|numstat|summary|check)$/.test(word));
  if (reports && !words.includes('--apply'))
    return { files: [], named: [], reading: { strip }, base };
  if (all.length === 0)
    return { ...fail('git apply reads its patch from a pipe the guard cannot see'), base };
  return { files: all, named: [], reading: { strip }, base };
}

function redirectedInputs(command: ShellCommand, cwd: ShellCwd): string[] {
  return command.redirects
    .filter((redirect) => redirect.operator === '<' && redirect.target.literal)
    .map((redirect) => resolve(redirect.cwd?.physical ?? cwd.physical, redirect.target.value));
}

/** A patch file's targets read as `reading` says; a string: why it cannot be read. */
export function readPatchFile(file: string, reading: PatchReading): PatchTargets | string {
  let text: string;
  try {
    const stats = statSync(file);
    if (!stats.isFile() || stats.size > MAX_PATCH_BYTES)
      return `${file} is not a patch file the guard reads (a regular file up to ${MAX_PATCH_BYTES} bytes)`;
    text = readFileSync(file, 'utf8');
  } catch {
    return `${file} cannot be read`;
  }
  const patch = readPatch(text, reading);
  if (patch.unknown) return `the patch in ${file} cannot be read: ${patch.unknown}`;
  if (patch.paths.length === 0) return `${file} names no file`;
  return patch;
}

/** Where a name of the patch lands, absolute. */
export function landed(command: PatchCommand, path: string): string {
  return isAbsolute(path) ? path : join(command.base, path);
}
