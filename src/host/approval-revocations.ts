import { z } from 'zod';

/**
 * What a project's approvals file keeps of its revokes, so that a revoke wins over an answer
 * given at the same time: a person asked about a call before it was revoked (two asks of one call
 * at once, the first remembered, then revoked from the command line) answers "always" after the
 * revoke, and without this the answer would store the revoked approval again. A revoke records
 * the approval's scope and when (`revoked`), `revoke --all` when it cleared the file (`clearedAt`);
 * an answer to an ask that began before either is not stored (approval-changes.ts, storeApproval).
 * Kept {@link KEPT_MS}: no ask waits that long for its answer.
 */
export interface Revocations {
  revoked: Revoked[];
  clearedAt: string | undefined;
}

export interface Revoked {
  /** The revoked approval's `grantKey`. */
  key: string;
  at: string;
}

export const revokedSchema = z.array(z.strictObject({ key: z.string(), at: z.string() }));

/** How long a revoke is kept: a day. */
const KEPT_MS = 24 * 60 * 60 * 1000;

/** Whether the scope `key`, asked about at `askedAt`, was revoked (or its file cleared) since. */
export function revokedSince(revocations: Revocations, key: string, askedAt: Date): boolean {
  const since = (at: string | undefined) => at !== undefined && Date.parse(at) >= askedAt.getTime();
  return (
    since(revocations.clearedAt) || revocations.revoked.some((r) => r.key === key && since(r.at))
  );
}

/** The revocations with `keys` revoked now added, and those older than {@link KEPT_MS} gone. */
export function withRevoked(revocations: Revocations, keys: readonly string[]): Revoked[] {
  const now = new Date();
  return [
    ...revocations.revoked.filter((r) => now.getTime() - Date.parse(r.at) < KEPT_MS),
    ...keys.map((key) => ({ key, at: now.toISOString() })),
  ];
}

/** What a file keeps of its revocations, for writing: nothing when there are none. */
export function revocationFields(revocations: Revocations): Partial<Revocations> {
  return {
    ...(revocations.revoked.length > 0 ? { revoked: revocations.revoked } : {}),
    ...(revocations.clearedAt !== undefined ? { clearedAt: revocations.clearedAt } : {}),
  };
}
