import { randomBytes } from 'node:crypto';
import { unlinkSync } from 'node:fs';
import { replaceFile, underFileLock } from '../fs/locked-file.js';
import { type ApprovalGrant, grantKey } from '../hooks/remember-scope.js';
import { revocationFields, revokedSince, withRevoked } from './approval-revocations.js';
import {
  isStale,
  NO_REVOCATIONS,
  type ProjectApprovals,
  projectFile,
  projectIdentity,
  projectKey,
  readApprovalsFile,
  type StoredApproval,
} from './approval-store.js';

/*
 * The changes of the remembered approvals (approval-store.ts reads them): each a read of the
 * project's file, a change and a whole-file write, with the file's lock held
 * (src/fs/locked-file.ts).
 */

/**
 * Adds a grant to a project's store (once: an equal grant already there is kept). `askedAt`, when
 * the person was asked: a revoke of this scope (or `revoke --all`) made since wins, and the grant
 * is not stored (an error saying so).
 */
export async function storeApproval(
  home: string,
  project: string,
  grant: ApprovalGrant,
  askedAt?: Date,
): Promise<StoredApproval> {
  const real = projectKey(project);
  const identity = projectIdentity(real);
  const file = projectFile(home, real, identity);
  return underFileLock(file, () => {
    const current = readApprovalsFile(file, { project: real, identity }) ?? {
      project: real,
      identity,
      file,
      approvals: [],
      revocations: NO_REVOCATIONS,
    };
    const key = grantKey(grant);
    if (askedAt !== undefined && revokedSince(current.revocations, key, askedAt)) {
      throw new Error(
        `${file}: not remembered: this approval was revoked while the person was asked (a revoke wins over an answer given at the same time); the call is asked about again next time`,
      );
    }
    const existing = current.approvals.find((stored) => grantKey(stored) === key);
    if (existing !== undefined) return existing;
    const stored: StoredApproval = {
      id: randomBytes(6).toString('hex'),
      extension: grant.extension,
      tool: grant.tool,
      args: grant.args,
      createdAt: new Date().toISOString(),
    };
    writeApprovals({ ...current, approvals: [...current.approvals, stored] });
    return stored;
  });
}

/** Removes the approval `id` from a store file; false when the file does not hold it (now). */
export async function revokeApproval(file: string, id: string): Promise<boolean> {
  return underFileLock(file, () => {
    const current = readApprovalsFile(file);
    if (current === undefined) return false;
    const kept = current.approvals.filter((approval) => approval.id !== id);
    if (kept.length === current.approvals.length) return false;
    const gone = current.approvals.filter((approval) => approval.id === id).map(grantKey);
    const revoked = withRevoked(current.revocations, gone);
    writeApprovals({
      ...current,
      approvals: kept,
      revocations: { ...current.revocations, revoked },
    });
    return true;
  });
}

/**
 * Forgets every approval of a store file, under its lock (a change in progress would write them
 * back); false when it was not there. The file of the folder now at its path is emptied and keeps
 * when (so that an answer to an ask made before is not stored: approval-revocations.ts); any other
 * — stale, or unreadable (this is how an unreadable one is cleared) — is deleted.
 */
export async function clearApprovalsFile(file: string): Promise<boolean> {
  return underFileLock(file, () => {
    let current: ProjectApprovals | undefined;
    try {
      current = readApprovalsFile(file);
    } catch {
      current = undefined;
    }
    if (current !== undefined && current.identity !== undefined && !isStale(current)) {
      const revoked = withRevoked(current.revocations, []);
      const clearedAt = new Date().toISOString();
      writeApprovals({ ...current, approvals: [], revocations: { revoked, clearedAt } });
      return true;
    }
    try {
      unlinkSync(file);
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
      throw error;
    }
  });
}

/**
 * Rewrites a project's file atomically (a reader sees the old file or the new one, whole), under
 * its lock. A file of version 1 keeps its version: revoking from it never makes it apply.
 */
function writeApprovals(approvals: ProjectApprovals): void {
  const { project, identity } = approvals;
  const text = `${JSON.stringify(
    identity === undefined
      ? { version: 1, project, approvals: approvals.approvals }
      : {
          version: 2,
          project,
          identity,
          approvals: approvals.approvals,
          ...revocationFields(approvals.revocations),
        },
    null,
    2,
  )}\n`;
  replaceFile(approvals.file, text);
}
