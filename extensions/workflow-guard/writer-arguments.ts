import { statSync } from 'node:fs';
import {
  argumentTexts,
  isWithin,
  looksLikePath,
  type ProjectPath,
  pathReadings,
  projectEntryNames,
  resolveProjectPath,
} from 'hermes-extensions/policy';

/** A writer call the guard cannot place: always unclear (no person can approve what is unread). */
export interface Unplaced {
  what: string;
  hint: string;
  kind: 'unclear';
}

/** An existing file with more than one name: a hard link in `plans/` may be a source file. */
export function hasOtherNames(path: ProjectPath): boolean {
  const stats = statSync(path.real, { throwIfNoEntry: false });
  return stats?.isFile() === true && stats.nlink > 1;
}

/**
 * A writer may hold, anywhere in its arguments, only strings the guard can place. The guard reads
 * the usual argument names (`writeTargetsOf`), but a tool may write to a file named under any
 * other (`uri`, `to`, the key of a `{ path: content }` map, a path inside JSON text) or decode the
 * name it is given (`plans/%2e%2e/src`, a `file:` URL, `\` as `/`). So every string outside
 * content and patch text that looks like a path (`looksLikePath`) must lie in `allowed_paths` in
 * each of its readings (`pathReadings`), and so must every reading of the paths the guard found
 * but the one as given (which the caller judges, as a change the guard understands). This holds
 * for argument names no list has, without a longer list.
 */
export function unplacedArgument(
  root: string,
  tool: string,
  args: Readonly<Record<string, unknown>>,
  targets: readonly string[],
  allowed: readonly string[],
): Unplaced | undefined {
  // Where each string was found, as the start of a sentence about it.
  const where = new Map<string, string>();
  const read = argumentTexts(args);
  for (const found of read.texts) {
    if (where.has(found.text)) continue;
    const at = `argument \`${found.argument}\``;
    if (!found.isKey) where.set(found.text, `${at} holds`);
    else if (found.argument === found.text) where.set(found.text, 'an argument is named');
    else where.set(found.text, `${at} has an entry named`);
  }
  const known = new Set(targets);
  const entries = projectEntryNames(root);
  const problem = read.unknown ?? firstProblem();
  if (problem === undefined) return undefined;
  const folders = allowed.join(', ');
  return {
    what: `${tool}: ${problem}`,
    hint: `Name only files under ${folders}, each as a plain path (no %-escapes, file: URLs, \`~\` or \`\\\`). If ${tool} writes no file, the user can take it out of workflow-guard's blocked_tools and add it to read_only_tools.`,
    kind: 'unclear',
  };

  function firstProblem(): string | undefined {
    for (const target of targets) {
      const problem = placed(target, where.get(target) ?? 'its patch names', true);
      if (problem) return problem;
    }
    for (const [text, at] of where) {
      if (known.has(text) || !looksLikePath(text, entries)) continue;
      const problem = placed(text, at, false);
      if (problem) return problem;
    }
    return undefined;
  }

  function placed(text: string, at: string, isTarget: boolean): string | undefined {
    const readings = pathReadings(text);
    if ('unreadable' in readings) {
      return `${at} ${show(text)}, which cannot be placed: ${readings.unreadable}`;
    }
    for (const reading of readings.readings) {
      if (isTarget && reading === text) continue; // judged as given by the caller
      const path = resolveProjectPath(root, reading);
      const as = reading === text ? '' : ` (read as ${show(reading)})`;
      if (!isWithin(path, allowed)) {
        return `${at} ${show(text)}, which may name a file outside ${allowed.join(', ')}${as}`;
      }
      if (hasOtherNames(path)) {
        return `${at} ${show(text)}, which may name a file with other names (a hard link)${as}`;
      }
    }
    return undefined;
  }
}

/** A string as it may appear in a message: quoted, escapes shown, long ones cut. */
function show(text: string): string {
  const quoted = JSON.stringify(text);
  return quoted.length > 100 ? `${quoted.slice(0, 97)}…"` : quoted;
}
