import { basename } from 'node:path';
import { z } from 'zod';
import { RESERVED_CONFIG_KEYS } from './schema.js';
import { didYouMean } from './suggest.js';

/** A key nothing reads, by its path from the top of the config file. */
export interface UnknownKey {
  path: string[];
  /** The known key it is closest to, when close enough to be a likely typo. */
  suggestion?: string;
}

/** Deeper than any real config; a config file in code can hand over a cycle. */
const MAX_DEPTH = 32;
/** Wrappers (optional, default, pipe...) peeled off one schema before giving up. */
const MAX_WRAPPERS = 16;

/**
 * The keys of `value` that `schema` has no place for, walking objects, arrays and records the
 * schema describes. A plain `z.object` strips such keys, so they are ignored without a word. Where
 * the schema is not one of this framework's zod objects, or keeps or rejects unknown keys itself
 * (loose, passthrough, catchall, strict), nothing is said: either every key is read, or parsing
 * already reports it.
 */
export function findUnknownKeys(
  schema: unknown,
  value: unknown,
  path: readonly string[],
): UnknownKey[] {
  const found: UnknownKey[] = [];
  walk(schema, value, [...path], found, 0);
  return found;
}

function walk(
  schema: unknown,
  value: unknown,
  path: string[],
  found: UnknownKey[],
  depth: number,
): void {
  if (depth > MAX_DEPTH) return;
  const inner = unwrap(schema);
  if (inner instanceof z.ZodObject) {
    if (!isMapping(value) || inner.def.catchall !== undefined) return;
    const shape = inner.shape as Record<string, unknown>;
    const known = Object.keys(shape);
    for (const [key, child] of Object.entries(value)) {
      if (Object.hasOwn(shape, key)) {
        walk(shape[key], child, [...path, key], found, depth + 1);
      } else {
        const suggestion = didYouMean(key, known);
        found.push({ path: [...path, key], ...(suggestion === undefined ? {} : { suggestion }) });
      }
    }
  } else if (inner instanceof z.ZodArray) {
    if (!Array.isArray(value)) return;
    value.forEach((item, i) => {
      walk(inner.element, item, [...path, String(i)], found, depth + 1);
    });
  } else if (inner instanceof z.ZodRecord) {
    if (!isMapping(value)) return;
    for (const [key, child] of Object.entries(value)) {
      walk(inner.valueType, child, [...path, key], found, depth + 1);
    }
  }
}

/** The schema a value is checked against once optional, default, pipe and the like are peeled. */
function unwrap(schema: unknown): unknown {
  let current = schema;
  for (let i = 0; i < MAX_WRAPPERS; i++) {
    if (
      current instanceof z.ZodOptional ||
      current instanceof z.ZodNullable ||
      current instanceof z.ZodDefault ||
      current instanceof z.ZodPrefault ||
      current instanceof z.ZodNonOptional ||
      current instanceof z.ZodReadonly ||
      current instanceof z.ZodCatch
    ) {
      current = current.unwrap();
    } else if (current instanceof z.ZodPipe) {
      // `.transform()` and `.pipe()`: the value as written is checked by the input side.
      current = current.in;
    } else {
      return current;
    }
  }
  return undefined;
}

function isMapping(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** `unknown key "extensions.guard.plan_pth" in FILE (did you mean "plan_path"?): it is ignored`. */
export function describeUnknownKey(key: UnknownKey, where: string): string {
  const hint = key.suggestion === undefined ? '' : ` (did you mean "${key.suggestion}"?)`;
  return `unknown key "${key.path.join('.')}" in ${where}${hint}: it is ignored`;
}

/** The only top-level section this framework reads. */
const SECTIONS = ['extensions'];
/**
 * `$HERMES_HOME/config.yaml` (and a project's `.hermes/config.yaml`, its counterpart) hold the
 * rest of the agent's settings too: there a top-level key is only worth a word when it is a near
 * miss of `extensions`.
 */
const SHARED_FILE = /^config\.ya?ml$/;

/**
 * Top-level keys of a config file that nothing reads. Keys starting with `$` (`$schema` for
 * editors) are tooling's, not settings.
 */
export function findUnknownSections(content: unknown, file: string): UnknownKey[] {
  if (!isMapping(content)) return [];
  const shared = SHARED_FILE.test(basename(file));
  const found: UnknownKey[] = [];
  for (const key of Object.keys(content)) {
    if (SECTIONS.includes(key) || key.startsWith('$')) continue;
    const suggestion = didYouMean(key, SECTIONS);
    if (shared && suggestion === undefined) continue;
    found.push({ path: [key], ...(suggestion === undefined ? {} : { suggestion }) });
  }
  return found;
}

/**
 * A misspelt loading key (`disable: [x]`) reads as the section of an extension named `disable`,
 * which must be a mapping: the error that follows says so, and this says what was meant.
 */
export function loadingKeyHint(path: readonly PropertyKey[]): string {
  if (path.length !== 2 || path[0] !== 'extensions' || typeof path[1] !== 'string') return '';
  if (RESERVED_CONFIG_KEYS.includes(path[1])) return '';
  const suggestion = didYouMean(path[1], RESERVED_CONFIG_KEYS);
  return suggestion === undefined ? '' : ` (did you mean "${suggestion}"?)`;
}
