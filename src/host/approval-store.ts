import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { z } from 'zod';
import type { ApprovalGrant } from '../hooks/remember-scope.js';
import { type Revocations, revokedSchema } from './approval-revocations.js';

/**
 * "Always for this project" answers, one JSON file per project under `$HERMES_HOME/approvals/`,
 * never in the project: a cloned repository cannot bring approvals of its own. A project is its
 * real path (a symlink or a second name of the folder finds the same approvals) AND the identity
 * of the folder there (projectIdentity): a folder deleted and made again at that path — another
 * repository cloned where the approved one was — is another project and is asked again.
 *
 * A change (approval-changes.ts) is a read of the file, a change and a write, made with the
 * file's lock held (src/fs/locked-file.ts), so that processes answering at once (hooks of parallel tool calls, two
 * agents in one project, a revoke from the command line) never write from a read that another
 * change has made old — which would drop the answers given in between, or bring a revoked one
 * back. The file itself is replaced whole, so a reader, which takes no lock, sees one or the other.
 */
export interface StoredApproval extends ApprovalGrant {
  id: string;
  createdAt: string;
}

export interface ProjectApprovals {
  project: string;
  /** The folder's identity when they were given; none in a file of the path-keyed version 1. */
  identity: string | undefined;
  file: string;
  approvals: StoredApproval[];
  /** What it keeps of its revokes, so that a revoke wins over an answer given meanwhile. */
  revocations: Revocations;
}

export const NO_REVOCATIONS: Revocations = { revoked: [], clearedAt: undefined };

const approvalSchema = z.strictObject({
  id: z.string().regex(/^[0-9a-f]{12}$/),
  extension: z.string().min(1),
  tool: z.string().min(1),
  args: z.record(z.string(), z.unknown()),
  createdAt: z.string(),
});

const fileSchema = z.discriminatedUnion('version', [
  // Keyed by the path alone: read so that list and revoke show and remove it, never applied.
  z.strictObject({
    version: z.literal(1),
    project: z.string().min(1),
    approvals: z.array(approvalSchema),
  }),
  z.strictObject({
    version: z.literal(2),
    project: z.string().min(1),
    identity: z.string().min(1),
    approvals: z.array(approvalSchema),
    revoked: revokedSchema.optional(),
    clearedAt: z.string().optional(),
  }),
]);

export function approvalsDir(home: string): string {
  return join(home, 'approvals');
}

/** The project's real path: where its approvals are looked for. */
export function projectKey(project: string): string {
  return realpathSync(project);
}

/**
 * The identity of the folder at a real path: device, inode and birth time, all set by the file
 * system when the folder is made. Nothing in the folder changes them, so a clone cannot take the
 * identity of the project it replaces; the birth time tells a new folder from the one whose inode
 * number it got back. Where the file system keeps no birth time, the status-change time stands in:
 * it also moves when an entry is added to or removed from the root folder, which then asks again.
 */
export function projectIdentity(realProject: string): string {
  const stat = statSync(realProject, { bigint: true });
  const born = stat.birthtimeNs > 0n ? `b${stat.birthtimeNs}` : `c${stat.ctimeNs}`;
  return `${stat.dev}:${stat.ino}:${born}`;
}

export function projectFile(home: string, realProject: string, identity: string): string {
  const digest = createHash('sha256')
    .update(`${realProject}\0${identity}`)
    .digest('hex')
    .slice(0, 32);
  return join(approvalsDir(home), `${digest}.json`);
}

/**
 * Reads a store file strictly. A file that cannot be read or does not fit throws an error naming
 * it and how to proceed: the caller fails closed (asks again, never allows).
 */
export function readApprovalsFile(
  file: string,
  expected?: { project: string; identity: string },
): ProjectApprovals | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new Error(`${file}: cannot read the remembered approvals: ${(error as Error).message}`);
  }
  const fix = `delete it (every "always" approval of that project is then asked again) or run \`hermes extensions approvals revoke --all\``;
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new Error(
      `${file}: remembered approvals are not JSON (${(error as Error).message}); ${fix}`,
    );
  }
  const parsed = fileSchema.safeParse(data);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.join('.') || 'the top level';
    throw new Error(
      `${file}: remembered approvals do not fit the format at ${where}: ${issue?.message}; ${fix}`,
    );
  }
  const identity = parsed.data.version === 2 ? parsed.data.identity : undefined;
  if (
    expected !== undefined &&
    (parsed.data.project !== expected.project || identity !== expected.identity)
  ) {
    throw new Error(
      `${file}: holds the approvals of ${parsed.data.project} (${identity ?? 'no identity'}), not of ${expected.project} (${expected.identity}); ${fix}`,
    );
  }
  const read = parsed.data;
  return {
    project: read.project,
    identity,
    file,
    approvals: read.approvals as StoredApproval[],
    revocations:
      read.version === 2
        ? { revoked: read.revoked ?? [], clearedAt: read.clearedAt }
        : NO_REVOCATIONS,
  };
}

/** The approvals remembered for the folder now at a project's path ("always"); none without a file. */
export function projectApprovals(home: string, project: string): ProjectApprovals {
  const real = projectKey(project);
  const identity = projectIdentity(real);
  const file = projectFile(home, real, identity);
  return (
    readApprovalsFile(file, { project: real, identity }) ?? {
      project: real,
      identity,
      file,
      approvals: [],
      revocations: NO_REVOCATIONS,
    }
  );
}

/** Every file in the store, each with whether it still belongs to the folder at its path. */
export function allApprovals(home: string): (ProjectApprovals & { stale: boolean })[] {
  let names: string[];
  try {
    names = readdirSync(approvalsDir(home));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  return names
    .filter((name) => name.endsWith('.json'))
    .sort()
    .flatMap((name) => readApprovalsFile(join(approvalsDir(home), name)) ?? [])
    .map((approvals) => ({ ...approvals, stale: isStale(approvals) }));
}

/**
 * The files recorded for a path, the current folder's and stale ones. A path whose folder is
 * gone is taken as given (resolved), so its stale records can still be listed and revoked.
 */
export function pathApprovals(
  home: string,
  project: string,
): (ProjectApprovals & { stale: boolean })[] {
  const real = realOrResolved(project);
  return allApprovals(home).filter((approvals) => approvals.project === real);
}

/**
 * The files to delete to forget every approval of a path: the current folder's file, even when it
 * cannot be read, and every readable file recorded for the path (a file that cannot be read names
 * no project, so it is left to `revoke --all` without a project).
 */
export function pathFiles(home: string, project: string): string[] {
  const real = realOrResolved(project);
  const files = new Set<string>();
  try {
    files.add(projectFile(home, real, projectIdentity(real)));
  } catch {
    // No folder at the path: only stale records are left.
  }
  let names: string[] = [];
  try {
    names = readdirSync(approvalsDir(home)).filter((name) => name.endsWith('.json'));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  for (const name of names) {
    const file = join(approvalsDir(home), name);
    try {
      if (readApprovalsFile(file)?.project === real) files.add(file);
    } catch {
      // Unreadable: see above.
    }
  }
  return [...files];
}

function realOrResolved(project: string): string {
  try {
    return projectKey(project);
  } catch {
    return resolve(project);
  }
}

/** Whether a file's approvals no longer belong to the folder at its path (or predate identities). */
export function isStale(approvals: ProjectApprovals): boolean {
  if (approvals.identity === undefined) return true;
  try {
    return (
      projectKey(approvals.project) !== approvals.project ||
      projectIdentity(approvals.project) !== approvals.identity
    );
  } catch {
    return true;
  }
}
