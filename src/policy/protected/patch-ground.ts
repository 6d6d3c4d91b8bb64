import {
  gitApplyCommand,
  landed,
  type PatchCommand,
  patchCommand,
  readPatchFile,
} from '../patch-command.js';
import { callLinks } from '../patch-links.js';
import type { ShellCommand } from '../shell/script.js';
import { type ProtectedGround, type ProtectedHit, protectedHit } from './ground.js';

/** What a `patch` or `git apply` command would change on protected ground, or why it is unread. */
export type PatchGround = { hit: ProtectedHit } | { unknown: string };

/**
 * A `patch` or `git apply` command writes the files its patch file names, where its strip level
 * and folder place them (patch-command.ts), not files its words name: the line can look harmless
 * while the patch writes `.hermes/config.yaml`. Each file it writes is judged where it lands,
 * through the links the patch itself makes. A patch the rule cannot read (from a pipe, an option
 * not understood, a file that is not there) may write anything: `unknown`. Undefined for any
 * other command, and for a patch that stays off protected ground.
 */
export function patchGround(
  ground: ProtectedGround,
  command: ShellCommand,
): PatchGround | undefined {
  const applied = appliedPatch(ground, command);
  if (applied === undefined) return undefined;
  if (applied.unknown !== undefined) return { unknown: applied.unknown };
  for (const file of applied.named) {
    const hit = protectedHit(ground, file);
    if (hit !== undefined) return { hit };
  }
  for (const file of applied.files) {
    const patch = readPatchFile(file, applied.reading);
    if (typeof patch === 'string') return { unknown: patch };
    const links = callLinks(applied.base, patch.links, patch.moves);
    if (links.unknown !== undefined) return { unknown: links.unknown };
    const places = [
      ...links.links.flatMap((link) => [link.at, link.leadsTo]),
      ...patch.paths.flatMap((path) => {
        const where = landed(applied, path);
        const through = links.through(path);
        return through === undefined ? [where] : [where, through];
      }),
    ];
    for (const place of places) {
      const hit = protectedHit(ground, place);
      if (hit !== undefined)
        return { hit: { ...hit, given: `${hit.given} (by the patch in ${file})` } };
    }
  }
  return undefined;
}

function appliedPatch(ground: ProtectedGround, command: ShellCommand): PatchCommand | undefined {
  const name = command.program?.literal ? command.program.value.split('/').pop() : undefined;
  if (name === 'patch') {
    if (command.cwd === undefined)
      return {
        files: [],
        named: [],
        reading: { strip: 'base' },
        base: ground.root,
        unknown: 'patch runs in a folder that cannot be known',
      };
    return patchCommand(command, command.words, command.cwd);
  }
  if (name !== 'git') return undefined;
  const words = command.words;
  let at = 0;
  for (; at < words.length && (words[at]?.value ?? '').startsWith('-'); at++) {
    if (/^(-c|-C|--git-dir|--work-tree|--namespace)$/.test(words[at]?.value ?? '')) at++;
  }
  if (words[at]?.value !== 'apply') return undefined;
  const unknown = (why: string): PatchCommand => ({
    files: [],
    named: [],
    reading: { strip: 1 },
    base: ground.root,
    unknown: why,
  });
  // git's own options before `apply` (-C, --git-dir, --work-tree) move where it applies.
  if (at > 0 && words.slice(0, at).some((word) => /^(-C|--git-dir|--work-tree)/.test(word.value)))
    return unknown('git runs elsewhere (-C, --git-dir, --work-tree)');
  const variable = words.find((word) => !word.literal);
  if (variable)
    return unknown(`\`${variable.text}\` is only known when the command runs (git apply)`);
  if (command.cwd === undefined) return unknown('git apply runs in a folder that cannot be known');
  const rest = words.slice(at + 1).map((word) => word.value);
  return gitApplyCommand(command, rest, command.cwd, ground.root);
}
