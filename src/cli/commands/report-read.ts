import { closeSync, constants, fstatSync, lstatSync, openSync, readFileSync } from 'node:fs';
import { CliError } from '../io.js';
import { printable } from './trust/show-changes.js';

/** One shadowed decision as the audit log holds it (src/observe/turn-telemetry.ts, shadowFields). */
export interface ShadowRecord {
  at: string;
  extension: string;
  action: string;
  message?: string;
  hook: string;
  toolName?: string;
}

export interface AuditRead {
  /** The files read, oldest first: `audit.jsonl.N` … `audit.jsonl.1`, then `audit.jsonl`. */
  files: string[];
  /** hook_decision lines read (within `since`), shadowed or not. */
  decisions: number;
  records: ShadowRecord[];
  /** Lines that are not JSON objects (a torn write, another tool's line): skipped, counted. */
  unreadable: number;
}

/** How far the rotated files are looked for: far past any `keep` a trail would use. */
const MAX_ROTATED = 1000;

/** Every line of an audit log that is a JSON object, oldest first, as written. */
export interface AuditEntries {
  /** The files read, oldest first: `audit.jsonl.N` … `audit.jsonl.1`, then `audit.jsonl`. */
  files: string[];
  entries: Array<Record<string, unknown>>;
  /** Lines that are not JSON objects (a torn write, another tool's line): skipped, counted. */
  unreadable: number;
}

/**
 * The lines of an audit log and its rotated files (extensions/audit-log keeps `<path>.1` as the
 * newest rotated one), oldest first: what `report` and `log` read. `links`: whether a symbolic
 * link at a file's own name is followed — yes for a path the user named, no for one found in the
 * project, where a cloned repository can commit one.
 */
export function readAuditEntries(path: string, links: 'follow' | 'refuse'): AuditEntries {
  const files = auditFiles(path);
  const read: AuditEntries = { files, entries: [], unreadable: 0 };
  for (const file of files) {
    for (const line of readRegular(file, links).split('\n')) {
      if (line.trim() === '') continue;
      let entry: unknown;
      try {
        entry = JSON.parse(line);
      } catch {
        read.unreadable++;
        continue;
      }
      if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) {
        read.unreadable++;
        continue;
      }
      read.entries.push(entry as Record<string, unknown>);
    }
  }
  return read;
}

/**
 * An audit log's files, oldest first: `<path>.N` … `<path>.1` (from `.1` up to the first number
 * missing), then `<path>`.
 */
export function auditFiles(path: string): string[] {
  const rotated: string[] = [];
  for (let i = 1; i <= MAX_ROTATED && present(`${path}.${i}`); i++) rotated.push(`${path}.${i}`);
  return [...rotated.reverse(), ...(present(path) ? [path] : [])];
}

/** The shadowed decisions in an audit log, at or after `since` (milliseconds) when given. */
export function readAuditLog(
  path: string,
  since: number | undefined,
  links: 'follow' | 'refuse',
): AuditRead {
  const { files, entries, unreadable } = readAuditEntries(path, links);
  const read: AuditRead = { files, decisions: 0, records: [], unreadable };
  for (const entry of entries) collect(entry, since, read);
  return read;
}

function collect(entry: Record<string, unknown>, since: number | undefined, read: AuditRead) {
  if (entry.event !== 'hook_decision') return;
  const at = typeof entry.at === 'string' ? entry.at : '';
  if (since !== undefined && !(Date.parse(at) >= since)) return;
  read.decisions++;
  if (!Array.isArray(entry.shadow)) return;
  for (const decision of entry.shadow as unknown[]) {
    const d = (decision ?? {}) as Record<string, unknown>;
    if (typeof d.extension !== 'string' || typeof d.action !== 'string') continue;
    read.records.push({
      at,
      extension: d.extension,
      action: d.action,
      ...(typeof d.message === 'string' ? { message: d.message } : {}),
      hook: String(entry.hook ?? ''),
      ...(typeof entry.tool_name === 'string' ? { toolName: entry.tool_name } : {}),
    });
  }
}

/** Anything at the name, a dangling link or a FIFO too: it is refused by name, not skipped. */
function present(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

function readRegular(file: string, links: 'follow' | 'refuse'): string {
  return readAuditBytes(file, links).toString('utf8');
}

/**
 * A regular file's bytes; anything else refused, naming it. Opened without blocking and checked
 * on the open descriptor: a FIFO would wait for a writer forever, a device (`/dev/zero`, a
 * terminal) never ends or is not a log, and checking the name first would leave a gap to swap it.
 */
export function readAuditBytes(file: string, links: 'follow' | 'refuse'): Buffer {
  const shown = printable(file);
  let fd: number;
  try {
    const noFollow = links === 'refuse' ? constants.O_NOFOLLOW : 0;
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK | noFollow);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ELOOP') {
      throw new CliError(
        `${shown} is a symbolic link: the audit log is not read through a link at its path, which a cloned repository can commit. Remove it, or name the log you mean with --file.`,
        1,
      );
    }
    throw new CliError(`${shown}: cannot read the audit log: ${(error as Error).message}`, 1);
  }
  try {
    if (!fstatSync(fd).isFile()) {
      throw new CliError(
        `${shown} is not a regular file (a FIFO, a device or a folder): the audit log is read only from the regular files the audit-log extension writes. Remove it, or name the log with --file.`,
        1,
      );
    }
    return readFileSync(fd);
  } finally {
    closeSync(fd);
  }
}
