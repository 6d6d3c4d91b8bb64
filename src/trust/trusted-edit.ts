import { realpathSync } from 'node:fs';
import { insideRelative } from '../fs/paths.js';
import { rewriteUserFile } from '../fs/user-file.js';
import { inspectProjectTrust, type ProjectTrust } from './project-trust.js';
import { compareRecords, type FileRecord, fingerprintOf, hasChanges, recordOf } from './records.js';
import {
  type OutdatedRecord,
  readTrust,
  sameTrustRecord,
  type TrustRecord,
  underTrustLock,
  writeTrust,
} from './store.js';
import { keepTrustedCopies } from './trusted-copies.js';

export interface TrustedEdit {
  /** The project's trust before the edit. */
  before: ProjectTrust;
  /** After it: still trusted when `renewed`. */
  after: ProjectTrust;
  /** Whether the trust record was renewed to cover the edited file. */
  renewed: boolean;
}

/**
 * Writes `next` over `file`, a file of the project's config that its trust covers, and renews
 * the trust for it only when that cannot trust anything the user did not see (docs/trust.md, "enable /
 * disable --project and trust"). The edit is the user's own command, but it changes a
 * fingerprinted file, so without this the project would silently stop being trusted. Renewed
 * only when all of these hold:
 * - before the edit the project was trusted as recorded (not for one run by
 *   `HERMES_TRUST_PROJECT=1`), or had no code or config at all to trust;
 * - `previous`, the bytes the edit was made from, are the bytes that trust covers for `file` (or
 *   the file was not there and is not covered): a config changed since it was trusted — a pulled
 *   commit that switches a guard off — is never carried into the new record;
 * - after the write, every file the trust covers is as recorded except `file`, whose digest is
 *   that of `next`, the bytes written here.
 * The new record is the old one with `file`'s entry replaced by `next`'s, so a file that changes
 * meanwhile still fails the digest check; and `next` differs from `previous` only by the edit
 * the user asked for, so nothing is trusted that was not trusted or made by that command.
 * The record is renewed, with the trust file's lock held, only if it is still the one the edit
 * was checked against: a revoke (or another trust) made meanwhile wins.
 * Otherwise the file is written and the project is left as it now is: untrusted.
 */
export async function writeTrustedEdit(options: {
  cwd: string;
  home: string;
  file: string;
  previous: Buffer | undefined;
  next: Buffer;
}): Promise<TrustedEdit> {
  const { cwd, home, file, previous, next } = options;
  const before = inspectProjectTrust({ cwd, home });
  const baseline = trustedBaseline(before, home);
  // Whole: a hook reading it half-written would find the project's config changed, and so
  // untrusted, or missing its guards.
  rewriteUserFile(file, next);
  const after = inspectProjectTrust({ cwd, home });
  const path = insideRelative(realpathSync(before.root), realpathSync(file));
  if (baseline === undefined || path === undefined || after.problems.length > 0) {
    return { before, after, renewed: false };
  }
  const old = baseline.files.find((r) => r.path === path);
  const madeFromTrusted =
    previous === undefined ? old === undefined : sameRecord(old, recordOf(path, previous));
  const expected = [...baseline.files.filter((r) => r.path !== path), recordOf(path, next)];
  if (!madeFromTrusted || hasChanges(compareRecords(expected, after.records))) {
    return { before, after, renewed: false };
  }
  const renewed = await underTrustLock(home, () => {
    const records = readTrust(home);
    if (!sameTrustRecord(records[before.root], baseline.record)) return false;
    records[before.root] = {
      fingerprint: fingerprintOf(expected),
      files: expected,
      paths: baseline.paths,
      trustedAt: new Date().toISOString(),
    };
    writeTrust(home, records);
    try {
      // The next `hermes extensions trust` diffs against this edit, as it is what is trusted now.
      keepTrustedCopies(home, before.root, expected);
    } catch {
      // Without copies the next review names the changed files without their diff; trust holds.
    }
    return true;
  });
  if (!renewed) return { before, after: inspectProjectTrust({ cwd, home }), renewed: false };
  return { before, after: inspectProjectTrust({ cwd, home }), renewed: true };
}

/**
 * The files and config paths the project is trusted with now, and the record they are read from
 * (none for a project without code or config), if it is trusted as recorded.
 */
function trustedBaseline(
  trust: ProjectTrust,
  home: string,
):
  | { files: FileRecord[]; paths: string[]; record: TrustRecord | OutdatedRecord | undefined }
  | undefined {
  const record = readTrust(home)[trust.root];
  if (trust.state === 'no-project-code') return { files: [], paths: [], record };
  if (trust.state !== 'trusted') return undefined;
  if (record === undefined || 'outdated' in record) return undefined;
  return { files: record.files, paths: record.paths, record };
}

function sameRecord(a: FileRecord | undefined, b: FileRecord): boolean {
  return a !== undefined && a.sha256 === b.sha256 && a.size === b.size;
}
