import { existsSync, readFileSync, rmSync } from 'node:fs';
import { rewriteUserFile } from '../../../fs/user-file.js';

/** One entry under `hooks.<Event>` in Claude Code's settings and Codex's hooks.json alike. */
export interface HookEntry {
  matcher?: string;
  hooks?: Array<{ type?: string; command?: string; timeout?: number }>;
}

/**
 * An agent's JSON settings file as read, with the layout it was written in, so that a change
 * written back differs from the user's file only where the change is: the same indentation (two
 * spaces, four, a tab, or none for a one-line file), line ends and final newline.
 */
export interface SettingsFile {
  file: string;
  settings: Record<string, unknown>;
  indent: string;
  eol: '\n' | '\r\n';
  finalNewline: boolean;
}

/** Reads `file` (none, or an empty one, is `{}`); a file that is not a JSON object is an error. */
export function readSettingsFile(file: string): SettingsFile {
  const text = existsSync(file) ? readFileSync(file, 'utf8') : '';
  const layout = { indent: '  ', eol: '\n' as const, finalNewline: true };
  if (text.trim() === '') return { file, settings: {}, ...layout };
  let settings: unknown;
  try {
    settings = JSON.parse(text);
  } catch (error) {
    throw new Error(
      `${file} is not valid JSON (${(error as Error).message}); fix or move it first`,
    );
  }
  if (settings === null || typeof settings !== 'object' || Array.isArray(settings))
    throw new Error(`${file} does not hold a JSON object; fix or move it first`);
  const multiline = text.trim().includes('\n');
  return {
    file,
    settings: settings as Record<string, unknown>,
    // The first indented line says how deep one level is; `{}` on one line says nothing.
    indent: multiline ? (/\n([ \t]+)\S/.exec(text)?.[1] ?? '  ') : text.trim() === '{}' ? '  ' : '',
    eol: text.includes('\r\n') ? '\r\n' : '\n',
    finalNewline: /\n$/.test(text),
  };
}

/**
 * Writes the settings back in their layout, whole (user-file.ts); settings left empty remove the
 * file (the same meaning).
 */
export function writeSettingsFile({
  file,
  settings,
  indent,
  eol,
  finalNewline,
}: SettingsFile): void {
  if (Object.keys(settings).length === 0) {
    rmSync(file, { force: true });
    return;
  }
  const json = JSON.stringify(settings, null, indent).replaceAll('\n', eol);
  rewriteUserFile(file, finalNewline ? `${json}${eol}` : json);
}

/** The settings' `hooks` object (`hooks.<Event>` arrays of entries), undefined when it is not one. */
export function hooksOf(settings: Record<string, unknown>): Record<string, unknown> | undefined {
  const hooks = settings.hooks;
  return hooks !== null && typeof hooks === 'object' && !Array.isArray(hooks)
    ? (hooks as Record<string, unknown>)
    : undefined;
}

/** The `hooks` object of the JSON settings `file`; undefined when there is none or it cannot be read. */
export function readHooks(file: string): Record<string, unknown> | undefined {
  try {
    return hooksOf(readSettingsFile(file).settings);
  } catch {
    return undefined;
  }
}

/**
 * The list under `hooks.<event>` that install adds the hermes hook to (none yet: a new, empty one).
 * Anything else there — an object, a string, a list holding an entry `isEntry` does not take — is
 * the user's and is refused, never replaced: the error names the file, the key and what was
 * expected. Install reads every event before it writes, so a refusal leaves the file untouched.
 */
export function eventList<T>(
  file: string,
  hooks: Record<string, unknown>,
  event: string,
  isEntry: (entry: unknown) => entry is T,
  expected: string,
): T[] {
  const value = hooks[event];
  if (value === undefined) return [];
  const found = Array.isArray(value) ? value.findIndex((entry) => !isEntry(entry)) : -1;
  if (Array.isArray(value) && found < 0) return value as T[];
  const what = Array.isArray(value)
    ? `a list whose entry ${found + 1} is ${kindOf(value[found])} of another form`
    : kindOf(value);
  throw new Error(
    `${file}: hooks.${event} is ${what}, not ${expected}; hermes does not replace what it does not understand, so nothing was written: make it such a list (or move your entry aside), then install again`,
  );
}

/** A plain JSON object (not a list, not null). */
export function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'an object';
  return typeof value === 'string' ? 'a string' : `a ${typeof value}`;
}
