import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { replaceFile, underFileLock } from '../fs/locked-file.js';
import type { FileRecord } from './records.js';

/** What `hermes extensions trust` recorded for one project root. */
export interface TrustRecord {
  /** `fingerprintOf(files)`. */
  fingerprint: string;
  /** Every file trusted: what loading the project's code and config may read inside it. */
  files: FileRecord[];
  /** Folders and files inside the project that config `paths` named when it was trusted. */
  paths: string[];
  trustedAt: string;
}

/**
 * A project recorded by an older version (one fingerprint over all files, no list): it has to be
 * trusted again, as there is nothing to check loading against.
 */
export interface OutdatedRecord {
  outdated: true;
  trustedAt?: string;
}

interface TrustFile {
  version: 2;
  projects: Record<string, TrustRecord>;
}

const FILE_NAME = 'trusted-projects.json';

export function trustFile(home: string): string {
  return join(home, FILE_NAME);
}

/** The records; a missing or unreadable file trusts nothing. */
export function readTrust(home: string): Record<string, TrustRecord | OutdatedRecord> {
  let parsed: { version?: unknown; projects?: Record<string, unknown> };
  try {
    parsed = JSON.parse(readFileSync(trustFile(home), 'utf8'));
  } catch {
    return {};
  }
  if (!parsed?.projects || typeof parsed.projects !== 'object') return {};
  const records: Record<string, TrustRecord | OutdatedRecord> = {};
  for (const [root, value] of Object.entries(parsed.projects)) {
    const record = value as Partial<TrustRecord> | null;
    const trustedAt = typeof record?.trustedAt === 'string' ? record.trustedAt : undefined;
    records[root] =
      parsed.version === 2 && isRecord(record)
        ? record
        : { outdated: true, ...(trustedAt ? { trustedAt } : {}) };
  }
  return records;
}

function isRecord(value: Partial<TrustRecord> | null): value is TrustRecord {
  return (
    typeof value?.fingerprint === 'string' &&
    Array.isArray(value.files) &&
    value.files.every(
      (f) =>
        typeof f?.path === 'string' && typeof f.sha256 === 'string' && typeof f.size === 'number',
    ) &&
    Array.isArray(value.paths) &&
    typeof value.trustedAt === 'string'
  );
}

/**
 * `change` with the trust file's lock held (src/fs/locked-file.ts): every change of the records —
 * trust, revoke, a renewal after an edit — reads them, and writes them with {@link writeTrust},
 * inside it, so that two commands at once never lose a project's trust nor bring back one
 * revoked meanwhile. The copies kept for the records (trusted-copies.ts) are written and pruned
 * inside it too, so that a prune never removes a copy a record written meanwhile refers to.
 */
export function underTrustLock<T>(home: string, change: () => T): Promise<T> {
  mkdirSync(home, { recursive: true });
  return underFileLock(trustFile(home), change);
}

/** Whether two reads of a project's record are the same record (none: both none). */
export function sameTrustRecord(
  a: TrustRecord | OutdatedRecord | undefined,
  b: TrustRecord | OutdatedRecord | undefined,
): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/**
 * Written whole, so a reader never sees half a file; with the lock held ({@link underTrustLock}).
 * Records of the older version are dropped: they trust nothing any more.
 */
export function writeTrust(
  home: string,
  projects: Record<string, TrustRecord | OutdatedRecord>,
): void {
  mkdirSync(home, { recursive: true });
  const kept: Record<string, TrustRecord> = {};
  for (const [root, record] of Object.entries(projects)) {
    if (!('outdated' in record)) kept[root] = record;
  }
  const content: TrustFile = { version: 2, projects: kept };
  replaceFile(trustFile(home), `${JSON.stringify(content, null, 2)}\n`);
}
