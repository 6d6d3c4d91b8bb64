import { readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { clearApprovalsFile, revokeApproval } from '../../host/approval-changes.js';
import {
  allApprovals,
  approvalsDir,
  type ProjectApprovals,
  pathApprovals,
  pathFiles,
} from '../../host/approval-store.js';
import type { CommandContext } from '../context.js';
import { CliError, type Io } from '../io.js';
import { printable } from './trust/show-changes.js';

/**
 * `hermes extensions approvals list [--project <dir>] [--json]`: the "always for this project"
 * approvals stored under `$HERMES_HOME/approvals/`, one line each (docs/cli.md). A record whose
 * path now holds another folder (or none, or that predates identities) is marked stale: it no
 * longer applies and is there to be revoked.
 */
export async function approvalsListCommand(
  context: CommandContext,
  options: { project?: string; json?: boolean },
  io: Io,
): Promise<number> {
  const projects = readStore(context, options.project);
  const rows = projects.flatMap((p) =>
    p.approvals.map((a) => ({ project: p.project, stale: p.stale, ...a })),
  );
  if (options.json) {
    io.out(JSON.stringify(rows, null, 2));
    return 0;
  }
  if (rows.length === 0) {
    io.out('no remembered approvals');
    return 0;
  }
  for (const row of rows) {
    io.out(
      `${row.id}  ${printable(row.extension)}  ${printable(row.tool)} ${JSON.stringify(row.args)}  ${printable(row.project)}  ${printable(row.createdAt)}${row.stale ? '  (stale: not the folder now at this path; never applied)' : ''}`,
    );
  }
  return 0;
}

/**
 * `hermes extensions approvals revoke <id> | --all [--project <dir>]`: forgets approvals. `--all`
 * empties the files (deletes a stale one), so it also clears a store that cannot be read.
 */
export async function approvalsRevokeCommand(
  context: CommandContext,
  id: string | undefined,
  options: { all?: boolean; project?: string },
  io: Io,
): Promise<number> {
  if (options.all === true) {
    if (id !== undefined) throw new CliError('give an approval id or --all, not both', 2);
    const files =
      options.project !== undefined
        ? pathFiles(context.home, resolve(context.cwd, options.project))
        : storeFiles(context.home);
    let cleared = 0;
    for (const file of files) if (await clearApprovalsFile(file)) cleared++;
    io.out(
      `revoked every remembered approval (${cleared} project file${cleared === 1 ? '' : 's'} cleared)`,
    );
    return 0;
  }
  if (id === undefined)
    throw new CliError('give an approval id (see `hermes extensions approvals list`) or --all', 2);
  for (const project of readStore(context, options.project)) {
    if (!project.approvals.some((a) => a.id === id)) continue;
    // Removed under the file's lock, from the file as it is then (approval-store.ts).
    if (!(await revokeApproval(project.file, id))) continue;
    io.out(`revoked ${id} (${printable(project.project)})`);
    return 0;
  }
  throw new CliError(
    `no remembered approval ${id}; list them with \`hermes extensions approvals list\``,
    1,
  );
}

function readStore(
  context: CommandContext,
  project: string | undefined,
): (ProjectApprovals & { stale: boolean })[] {
  try {
    if (project === undefined) return allApprovals(context.home);
    return pathApprovals(context.home, resolve(context.cwd, project));
  } catch (error) {
    throw new CliError((error as Error).message, 1);
  }
}

function storeFiles(home: string): string[] {
  try {
    return readdirSync(approvalsDir(home))
      .filter((name) => name.endsWith('.json'))
      .map((name) => join(approvalsDir(home), name));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
}
