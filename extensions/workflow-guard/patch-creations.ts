import { isAbsolute, resolve } from 'node:path';
import {
  callLinks,
  type PatchLink,
  type PatchMove,
  type PatchReading,
  type PathBase,
  patchCommand,
  readPatchFile,
  type ShellCommand,
  type ShellWord,
} from 'hermes-extensions/policy';
import type { Creation, CreationLog } from './creation-log.js';

/**
 * `patch [OPTIONS] [ORIGINAL [PATCHFILE]]`: the files its patch names, where its strip level and
 * folder put them (`patchCommand` of hermes-extensions/policy: `-pN`, GNU patch's base name
 * without `-p`, `-d`).
 */
export function patchCommandCreations(
  log: CreationLog,
  words: readonly ShellWord[],
  command: ShellCommand,
): string | undefined {
  if (command.cwd === undefined) return 'patch runs in a folder that cannot be known';
  const applied = patchCommand(command, words, command.cwd);
  if (applied.unknown !== undefined) return applied.unknown;
  for (const original of applied.named) {
    const problem = log.add(original, command.cwd, false, 'patch');
    if (problem) return problem;
  }
  const base = { lexical: applied.base, physical: applied.base };
  for (const file of applied.files) {
    const problem = patchFileCreations(log, file, command.cwd, base, 'patch', applied.reading);
    if (problem) return problem;
  }
  return undefined;
}

/**
 * The files a patch file (read from `cwd`) names, from `base`, read as `reading` says (the
 * command's strip level); unclear when it cannot be read.
 */
export function patchFileCreations(
  log: CreationLog,
  file: string,
  cwd: PathBase | undefined,
  base: PathBase | undefined,
  by: string,
  reading: PatchReading,
): string | undefined {
  if (cwd === undefined && !isAbsolute(file))
    return `${by} reads ${file} from a folder that cannot be known`;
  const patch = readPatchFile(resolve(cwd?.physical ?? log.root, file), reading);
  if (typeof patch === 'string') return `${by}: ${patch}`;
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
