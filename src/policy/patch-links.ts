import { lstatSync, readlinkSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import type { PatchLink, PatchMove } from './patch.js';

/** A symbolic link a call makes, once placed. */
export interface MadeLink {
  /** As the patch names it. */
  given: string;
  /** Its text: where it leads from its folder. */
  text: string;
  /** Where the link itself is (absolute; links the call made before it followed). */
  at: string;
  /** Where it leads (absolute; every link the call makes followed). */
  leadsTo: string;
}

/** The links a call makes, and a way to follow them; `unknown` when they cannot be followed. */
export interface CallLinks {
  links: MadeLink[];
  /**
   * Where a path really lands once the links the call makes exist (absolute), undefined when it
   * passes through none of them: the path given to the resolvers that know the disk's links.
   */
  through(path: string, from?: string): string | undefined;
  unknown: string | undefined;
}

/** More links followed than this for one path: a loop. */
const MAX_HOPS = 40;

/**
 * The symbolic links a patch makes (mode 120000, read by `readPatch`), and the existing links it
 * renames or copies (the link keeps its text, which leads elsewhere from its new folder), with
 * names starting at `base` (absolute). GNU patch writes through a link made earlier in the same
 * patch, so a path of the patch must be judged where it lands, not where its name says
 * (extensions/workflow-guard/README.md, Links a patch makes). Paths are followed segment by
 * segment as the system does: `l/..` after a link `l` climbs from where `l` leads.
 */
export function callLinks(
  base: string,
  links: readonly PatchLink[],
  moves: readonly PatchMove[],
): CallLinks {
  const given: PatchLink[] = [...links];
  for (const move of moves) {
    const from = resolve(base, move.from);
    try {
      if (lstatSync(from).isSymbolicLink())
        given.push({ path: move.to, target: readlinkSync(from) });
    } catch {
      // Nothing there (or not reachable): no link to move.
    }
  }
  const made: MadeLink[] = [];
  let unknown: string | undefined;
  const loop = (link: { given?: string; path?: string }) => {
    unknown ??= `the links it makes lead in a loop (${link.given ?? link.path})`;
  };
  for (const link of given) {
    // Where the link itself is: through the links made before it, not through itself.
    const at = walk(made, absolute(base, link.path), false);
    if (at === undefined) loop(link);
    else made.push({ given: link.path, text: link.target, at, leadsTo: at });
  }
  // Where each leads, once all are known (a link made later may lie on the way).
  for (const link of made) {
    const leadsTo = walk(made, absolute(dirname(link.at), link.text));
    if (leadsTo === undefined) loop(link);
    else link.leadsTo = leadsTo;
  }
  return {
    links: made,
    unknown,
    through(path, from = base) {
      if (made.length === 0) return undefined;
      const start = absolute(from, path);
      const landed = walk(made, start);
      // A loop among the links is `unknown` already.
      return landed === undefined || landed === walk([], start) ? undefined : landed;
    },
  };
}

function absolute(from: string, path: string): string {
  return isAbsolute(path) ? path : `${from}/${path}`;
}

/**
 * `path` (absolute) as the system would resolve it once the links of `made` exist: segment by
 * segment, each link followed where it lies on the way (those of `made` first, then those on the
 * disk; the last segment too, unless `followLast` is false), so a `..` after a link climbs from
 * where the link leads; undefined for a loop.
 */
function walk(made: readonly MadeLink[], path: string, followLast = true): string | undefined {
  let hops = 0;
  const step = (segments: readonly string[], start: string[]): string[] | undefined => {
    let at = start;
    for (let i = 0; i < segments.length; i++) {
      const segment = segments[i] as string;
      if (segment === '' || segment === '.') continue;
      if (segment === '..') {
        at = at.slice(0, -1);
        continue;
      }
      at = [...at, segment];
      const last = segments.slice(i + 1).every((s) => s === '' || s === '.');
      if (last && !followLast) continue;
      const here = `/${at.join('/')}`;
      const text = made.find((l) => l.at === here)?.text ?? diskLink(here);
      if (text === undefined) continue;
      if (++hops > MAX_HOPS) return undefined;
      const next = step(text.split('/'), isAbsolute(text) ? [] : at.slice(0, -1));
      if (next === undefined) return undefined;
      at = next;
    }
    return at;
  };
  const segments = step(path.split('/'), []);
  return segments === undefined ? undefined : `/${segments.join('/')}`;
}

/** The text of the symbolic link at `path`, or undefined for anything else. */
function diskLink(path: string): string | undefined {
  try {
    return lstatSync(path).isSymbolicLink() ? readlinkSync(path) : undefined;
  } catch {
    return undefined;
  }
}
