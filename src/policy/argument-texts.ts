import { argumentName, CONTENT_KEYS, isKnownArgumentName, PATCH_KEYS } from './argument-names.js';
import { readPatch } from './patch.js';

/** A string somewhere in a tool call's arguments: a value, or the name of an argument. */
export interface ArgumentText {
  /** Where it is: `to`, `edits[0][1].where`, `files` (for a key of `files`). */
  argument: string;
  text: string;
  /** The text is the name of an argument (`{ files: { 'src/a.ts': … } }`), not a value. */
  isKey: boolean;
}

/** The strings of a tool call's arguments, and why some could not be read. */
export interface ArgumentTexts {
  texts: ArgumentText[];
  /** Set when part of the arguments was not read (nested deeper than the guard reads). */
  unknown: string | undefined;
}

const MAX_DEPTH = 20;

/**
 * Every string of a tool call's arguments that a tool might take as a file name, at any depth:
 * values, lists and the names of arguments the guard does not know (a `{ path: content }` map),
 * and the same inside text that is JSON (`{ args: '{"path":"src/a.ts"}' }`). Left out: text under
 * content names (`content`, `new_string`, …: what is written, not where) and patch text (its
 * files are read by `writeTargetsOf`). A guard cannot know which argument a tool it has never
 * seen writes to; it can ask that every such string be one it can place (see `looksLikePath`).
 */
export function argumentTexts(args: unknown): ArgumentTexts {
  const found: ArgumentTexts = { texts: [], unknown: undefined };
  walk(args, '', found, 0);
  return found;
}

function walk(value: unknown, at: string, found: ArgumentTexts, depth: number): void {
  if (value === null || typeof value !== 'object') return;
  if (depth > MAX_DEPTH) {
    found.unknown ??= `its argument \`${at}\` is nested too deep to read`;
    return;
  }
  if (Array.isArray(value)) {
    value.forEach((item, index) => {
      visit(item, `${at}[${index}]`, undefined, found, depth);
    });
    return;
  }
  for (const [key, item] of Object.entries(value)) {
    const where = at === '' ? key : `${at}.${key}`;
    if (!isKnownArgumentName(key))
      found.texts.push({ argument: at || key, text: key, isKey: true });
    visit(item, where, key, found, depth);
  }
}

/** One value under `key` (the name of the nearest argument above it; none in a top-level list). */
function visit(
  item: unknown,
  where: string,
  key: string | undefined,
  found: ArgumentTexts,
  depth: number,
): void {
  const name = key === undefined ? undefined : argumentName(key);
  if (typeof item === 'string') {
    // What is written (a list of lines inherits the name), and patch text, read as
    // `writeTargetsOf` reads it: under a patch name, or text of several lines that is a patch.
    if (name !== undefined && (CONTENT_KEYS.has(name) || PATCH_KEYS.has(name))) return;
    if (item.includes('\n') && readPatch(item).isPatch) return;
    found.texts.push({ argument: where, text: item, isKey: false });
    const json = jsonOf(item);
    if (json !== undefined) walk(json, where, found, depth + 1);
    return;
  }
  if (Array.isArray(item)) {
    // A list inherits its argument's name: `content: ['a', 'b']` is content, `to: [...]` is not.
    item.forEach((entry, index) => {
      visit(entry, `${where}[${index}]`, key, found, depth + 1);
    });
    return;
  }
  walk(item, where, found, depth + 1);
}

/** An object or a list written as JSON text, else undefined. */
function jsonOf(text: string): unknown {
  const trimmed = text.trim();
  if (!trimmed.startsWith('{') && !trimmed.startsWith('[')) return undefined;
  try {
    const value: unknown = JSON.parse(trimmed);
    return typeof value === 'object' && value !== null ? value : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A folder separator, a %-escape, a `file:` URL, a home folder, `.` or `..`; tested on the text
 * as given and in NFKC form (where a fullwidth `／` or `．` is `/` or `.`).
 */
const PATH_SHAPE = /[/\\]|%[0-9a-f]{2}|^\s*file:|^\s*~|^\s*\.{1,2}\s*$/i;
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it finds
const CONTROL = /[\u0000-\u001f\u007f]/g;

/**
 * Whether a string could name a file for a tool that takes it as one: it has the shape of a path
 * (see PATH_SHAPE), or it is the name of an entry of the project root (`package.json`, `src`:
 * compared without regard to case, space around it or control characters, as a tool that trims
 * it or a file system that ignores case would). `entries`: those names, in lower case. Other
 * words (`create`, `replace`) could only name a new file in the folder the tool runs in.
 */
export function looksLikePath(text: string, entries: ReadonlySet<string>): boolean {
  return [text, text.normalize('NFKC')].some(
    (form) => PATH_SHAPE.test(form) || entries.has(form.replace(CONTROL, '').trim().toLowerCase()),
  );
}
