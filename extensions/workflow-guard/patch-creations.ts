import { readFileSync, statSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import {
  callLinks,
  type PatchLink,
  type PatchMove,
  type PathBase,
  readPatch,
  type ShellCommand,
  type ShellWord,
} from 'hermes-extensions/policy';
import type { Creation, CreationLog } from './creation-log.js';

/** The largest patch file read to see what it creates. */
const MAX_PATCH_BYTES = 1024 * 1024;

/** `patch [-i FILE | < FILE] [ORIGINAL]`: the files its patch names, from where it runs. */
export function patchCommandCreations(
  log: CreationLog,
  words: readonly ShellWord[],
  command: ShellCommand,
): string | undefined {
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
    const problem = log.add(original, command.cwd, false, 'patch');
    if (problem) return problem;
  }
  for (const file of files) {
    const problem = patchFileCreations(log, file, command.cwd, command.cwd, 'patch');
    if (problem) return problem;
  }
  return undefined;
}

/**
 * The files a patch file (read from `cwd`) names, from `base`; unclear when it cannot be read.
 * Its text is read with `readPatch`, as the patch tools' arguments are.
 */
export function patchFileCreations(
  log: CreationLog,
  file: string,
  cwd: PathBase | undefined,
  base: PathBase | undefined,
  by: string,
): string | undefined {
  if (cwd === undefined && !isAbsolute(file))
    return `${by} reads ${file} from a folder that cannot be known`;
  let text: string;
  try {
    const path = resolve(cwd?.physical ?? log.root, file);
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
    const problem = log.add(path, base, false, by);
    if (problem) return problem;
  }
  const linked = linkCreations(base?.physical ?? log.root, patch, by);
  if (typeof linked === 'string') return `${by}: the patch in ${file}: ${linked}`;
  log.creations.push(...linked);
  return undefined;
}

/**
 * What the links a patch makes add to what it creates (paths from `base`, absolute): each link
 * and where it leads, as folders (a write through the link makes what it leads to), and each path
 * of the patch where it lands through them; or why the links cannot be followed.
 */
export function linkCreations(
  base: string,
  patch: { paths: readonly string[]; links: readonly PatchLink[]; moves: readonly PatchMove[] },
  by: string,
): Creation[] | string {
  const links = callLinks(base, patch.links, patch.moves);
  if (links.unknown) return links.unknown;
  const creations: Creation[] = [];
  for (const link of links.links) {
    creations.push({ path: link.at, folder: true, by }, { path: link.leadsTo, folder: true, by });
  }
  for (const path of patch.paths) {
    const landed = links.through(path);
    if (landed !== undefined) creations.push({ path: landed, folder: false, by });
  }
  return creations;
}
