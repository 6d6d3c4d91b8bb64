import { sha256 } from '../fs/digest.js';

/** One file of the project's hook code or config, as trusted: path relative to the root, '/'-separated. */
export interface FileRecord {
  path: string;
  size: number;
  sha256: string;
}

export function recordOf(path: string, bytes: Buffer): FileRecord {
  return { path, size: bytes.length, sha256: sha256(bytes) };
}

export function sortRecords(records: Iterable<FileRecord>): FileRecord[] {
  return [...records].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/**
 * The SHA-256 of the canonical JSON of the sorted records. Each file keeps its name, length and
 * digest apart, so no two different sets of files can give the same input (one stream of names
 * and contents could: a name can be shifted into the previous file's content).
 */
export function fingerprintOf(records: readonly FileRecord[]): string {
  const canonical = sortRecords(records).map((r) => [r.path, r.size, r.sha256]);
  return sha256(JSON.stringify(canonical));
}

/** What differs between the files trusted and the files now. */
export interface TrustChanges {
  added: string[];
  removed: string[];
  changed: string[];
}

export function compareRecords(
  trusted: readonly FileRecord[],
  now: readonly FileRecord[],
): TrustChanges {
  const before = new Map(trusted.map((r) => [r.path, r]));
  const after = new Map(now.map((r) => [r.path, r]));
  const changes: TrustChanges = { added: [], removed: [], changed: [] };
  for (const [path, record] of after) {
    const old = before.get(path);
    if (old === undefined) changes.added.push(path);
    else if (old.sha256 !== record.sha256 || old.size !== record.size) changes.changed.push(path);
  }
  for (const path of before.keys()) if (!after.has(path)) changes.removed.push(path);
  for (const list of Object.values(changes)) list.sort();
  return changes;
}

export function hasChanges(changes: TrustChanges): boolean {
  return changes.added.length + changes.removed.length + changes.changed.length > 0;
}

/** `2 changed (a.ts, b.ts), 1 added (c.ts)`, for diagnostics. */
export function describeChanges(changes: TrustChanges, limit = 5): string {
  const part = (word: string, paths: string[]) => {
    if (paths.length === 0) return undefined;
    const shown = paths.slice(0, limit).join(', ');
    const more = paths.length > limit ? `, +${paths.length - limit} more` : '';
    return `${paths.length} ${word} (${shown}${more})`;
  };
  return [
    part('changed', changes.changed),
    part('added', changes.added),
    part('removed', changes.removed),
  ]
    .filter((p) => p !== undefined)
    .join(', ');
}
