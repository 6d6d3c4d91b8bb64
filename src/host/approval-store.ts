import { createHash, randomBytes } from 'node:crypto';
import {
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { type ApprovalGrant, grantKey } from '../hooks/remember-scope.js';

/**
 * "Always for this project" answers, one JSON file per project under `$HERMES_HOME/approvals/`,
 * never in the project: a cloned repository cannot bring approvals of its own. The file is named
 * after, and records, the project's real path, so a symlink or a second name of the folder finds
 * the same approvals and no other project's.
 */
export interface StoredApproval extends ApprovalGrant {
  id: string;
  createdAt: string;
}

export interface ProjectApprovals {
  project: string;
  file: string;
  approvals: StoredApproval[];
}

const fileSchema = z.strictObject({
  version: z.literal(1),
  project: z.string().min(1),
  approvals: z.array(
    z.strictObject({
      id: z.string().regex(/^[0-9a-f]{12}$/),
      extension: z.string().min(1),
      tool: z.string().min(1),
      args: z.record(z.string(), z.unknown()),
      createdAt: z.string(),
    }),
  ),
});

export function approvalsDir(home: string): string {
  return join(home, 'approvals');
}

/** The project's real path: what its approvals are keyed by. */
export function projectKey(project: string): string {
  return realpathSync(project);
}

export function projectFile(home: string, realProject: string): string {
  const digest = createHash('sha256').update(realProject).digest('hex').slice(0, 32);
  return join(approvalsDir(home), `${digest}.json`);
}

/**
 * Reads a store file strictly. A file that cannot be read or does not fit throws an error naming
 * it and how to proceed: the caller fails closed (asks again, never allows).
 */
export function readApprovalsFile(
  file: string,
  realProject?: string,
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
  if (realProject !== undefined && parsed.data.project !== realProject) {
    throw new Error(
      `${file}: holds the approvals of ${parsed.data.project}, not of ${realProject}; ${fix}`,
    );
  }
  return {
    project: parsed.data.project,
    file,
    approvals: parsed.data.approvals as StoredApproval[],
  };
}

/** The approvals remembered for a project ("always"); none when it has no file. */
export function projectApprovals(home: string, project: string): ProjectApprovals {
  const real = projectKey(project);
  const file = projectFile(home, real);
  return readApprovalsFile(file, real) ?? { project: real, file, approvals: [] };
}

/** Every project's approvals in the store. */
export function allApprovals(home: string): ProjectApprovals[] {
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
    .flatMap((name) => readApprovalsFile(join(approvalsDir(home), name)) ?? []);
}

/** Adds a grant to a project's store (once: an equal grant already there is kept). */
export function storeApproval(home: string, project: string, grant: ApprovalGrant): StoredApproval {
  const current = projectApprovals(home, project);
  const key = grantKey(grant);
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
}

/** Rewrites a project's file atomically (a reader sees the old file or the new one, whole). */
export function writeApprovals(approvals: ProjectApprovals): void {
  mkdirSync(join(approvals.file, '..'), { recursive: true, mode: 0o700 });
  const text = `${JSON.stringify({ version: 1, project: approvals.project, approvals: approvals.approvals }, null, 2)}\n`;
  const temporary = `${approvals.file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  writeFileSync(temporary, text, { mode: 0o600 });
  renameSync(temporary, approvals.file);
}
