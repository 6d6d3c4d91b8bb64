import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  realpathSync,
  statSync,
} from 'node:fs';
import { dirname, relative, sep } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { replaceFile } from '../../../fs/locked-file.js';

/**
 * An MCP client's JSON config as read, with its layout, so that what `hermes mcp install` writes
 * back differs from the user's file only where the server changed: the same indentation, line
 * ends, final newline, key order and file mode.
 */
export interface McpConfigText {
  file: string;
  /** The file's text as read ('' for none). */
  text: string;
  /** Its JSON, which the caller changes before writing. */
  config: Record<string, unknown>;
  indent: string;
  eol: '\n' | '\r\n';
  finalNewline: boolean;
  /** The file's permission bits; undefined for a file not there yet. */
  mode: number | undefined;
}

/** Why a config cannot be read or written; the message names the file. */
export class McpConfigError extends Error {}

/**
 * Reads `file` (none, or an empty one, is `{}`). A file that does not parse is refused with its
 * line and column; one reached through a symbolic link below `base` (the project, the home
 * folder) is refused, naming where the link leads: a write would replace the link with a file,
 * or change a file elsewhere that other things read.
 */
export function readMcpConfig(file: string, base: string): McpConfigText {
  refuseLinks(file, base);
  const exists = existsSync(file);
  const text = exists ? readFileSync(file, 'utf8') : '';
  const mode = exists ? statSync(file).mode & 0o777 : undefined;
  const layout = { indent: '  ', eol: '\n' as const, finalNewline: true, mode };
  if (text.trim() === '') return { file, text, config: {}, ...layout };
  const config = parseJson(file, text);
  if (config === null || typeof config !== 'object' || Array.isArray(config))
    throw new McpConfigError(`${file} does not hold a JSON object; fix or move it first`);
  const multiline = text.trim().includes('\n');
  return {
    file,
    text,
    config: config as Record<string, unknown>,
    indent: multiline ? (/\n([ \t]+)\S/.exec(text)?.[1] ?? '  ') : text.trim() === '{}' ? '  ' : '',
    eol: text.includes('\r\n') ? '\r\n' : '\n',
    finalNewline: /\n$/.test(text),
    mode,
  };
}

/**
 * Writes `read.config` back (beside the file, then renamed over it) in the file's mode: as
 * `spliced`, the text with only the changed server edited (json-splice.ts), when that text holds
 * exactly the config; else the whole config in the file's layout.
 */
export function writeMcpConfig(
  read: McpConfigText,
  spliced: string | undefined,
  newFileMode: number,
): void {
  let text = spliced;
  try {
    if (text !== undefined && !isDeepStrictEqual(JSON.parse(text), read.config)) text = undefined;
  } catch {
    text = undefined;
  }
  if (text === undefined) {
    const json = JSON.stringify(read.config, null, read.indent).replaceAll('\n', read.eol);
    text = read.finalNewline ? `${json}${read.eol}` : json;
  }
  mkdirSync(dirname(read.file), { recursive: true });
  replaceFile(read.file, text);
  chmodSync(read.file, read.mode ?? newFileMode);
}

/** The JSON of `file`; a text that does not parse is refused with its line and column. */
export function parseJson(file: string, text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    const message = (error as Error).message;
    const position = /at position (\d+)/.exec(message);
    const where = position === null ? '' : ` at ${lineAndColumn(text, Number(position[1]))}`;
    // VS Code's mcp.json is JSON with comments: hermes writes plain JSON, and would drop them.
    const comments = /^\s*\/[/*]/m.test(text)
      ? ' (hermes reads plain JSON: comments and trailing commas are not read)'
      : '';
    throw new McpConfigError(
      `${file} is not valid JSON${where}: ${message.replace(/ in JSON at position \d+.*$/, '')}${comments}; fix it (or move it aside) first, nothing was written`,
    );
  }
}

function lineAndColumn(text: string, position: number): string {
  const before = text.slice(0, position);
  const line = before.split('\n').length;
  const column = position - before.lastIndexOf('\n');
  return `line ${line}, column ${column}`;
}

/** Refuses `file` when it, or a folder between `base` and it, is a symbolic link. */
function refuseLinks(file: string, base: string): void {
  const below = relative(base, file);
  const parts = below.startsWith('..') || below === '' ? [file] : below.split(sep);
  let at = below.startsWith('..') || below === '' ? '' : base;
  for (const part of parts) {
    at = at === '' ? part : `${at}${sep}${part}`;
    const stats = lstatSync(at, { throwIfNoEntry: false });
    if (stats === undefined) return;
    if (stats.isSymbolicLink()) {
      let target = 'a path that cannot be resolved';
      try {
        target = realpathSync(at);
      } catch {
        // A dangling link: said as such.
      }
      throw new McpConfigError(
        `${at} is a symbolic link to ${target}; hermes does not write an MCP config through a link (that would replace the link, or change a file elsewhere): edit ${file} by hand, or replace the link with the file, then run this again`,
      );
    }
  }
}
