import { existsSync, readFileSync } from 'node:fs';

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

/**
 * The shadowed decisions in an audit log and its rotated files (extensions/audit-log keeps
 * `<path>.1` as the newest rotated one), at or after `since` (milliseconds) when given.
 */
export function readAuditLog(path: string, since: number | undefined): AuditRead {
  const rotated: string[] = [];
  for (let i = 1; i <= MAX_ROTATED && existsSync(`${path}.${i}`); i++) rotated.push(`${path}.${i}`);
  const files = [...rotated.reverse(), ...(existsSync(path) ? [path] : [])];
  const read: AuditRead = { files, decisions: 0, records: [], unreadable: 0 };
  for (const file of files) {
    for (const line of readFileSync(file, 'utf8').split('\n')) {
      if (line.trim() === '') continue;
      let entry: unknown;
      try {
        entry = JSON.parse(line);
      } catch {
        read.unreadable++;
        continue;
      }
      if (entry === null || typeof entry !== 'object') {
        read.unreadable++;
        continue;
      }
      collect(entry as Record<string, unknown>, since, read);
    }
  }
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
