import { createInterface } from 'node:readline/promises';
import { RolldownUnavailable } from '../../modules/project-code/rolldown-peer.js';
import {
  cannotTrust,
  inspectProjectTrust,
  reviewProject,
  revokeProjectTrust,
  type TrustReview,
  trustProject,
} from '../../trust/project-trust.js';
import type { FileRecord } from '../../trust/records.js';
import { readTrust, underTrustLock } from '../../trust/store.js';
import { changesSinceTrust, type FileChange } from '../../trust/trust-diff.js';
import { keepTrustedCopies } from '../../trust/trusted-copies.js';
import type { CommandContext } from '../context.js';
import { CliError, type Io } from '../io.js';
import { countChanges, printable, showChanges } from './trust/show-changes.js';

interface TrustOptions {
  yes?: boolean;
  revoke?: boolean;
  /** Every file, not only what changed since the project was last trusted. */
  list?: boolean;
}

/**
 * `hermes extensions trust [--yes] [--revoke] [--list]`: shows what trusting runs or reads (found
 * without running any of it) and records it; asks on a terminal, needs `--yes` anywhere else. The
 * first time every file is listed; after that, what changed since the last trust, with a diff of
 * each small text file against the copy kept when it was trusted (src/trust/trusted-copies.ts),
 * so that re-trusting an edit reviews the edit. A code config's `paths` are known only once it
 * runs: files they add are shown and asked about again before anything is recorded.
 */
export async function trustCommand(context: CommandContext, options: TrustOptions, io: Io) {
  const { home } = context;
  if (options.revoke) return revoke(context, io);
  // What the review is made against: a revoke or another trust meanwhile wins (trustProject).
  const seen = readTrust(home);
  const review = await reviewProject({ cwd: context.cwd, home }).catch((error: unknown) => {
    // Without rolldown nothing can be reviewed: say what to install, as a problem of this run.
    if (error instanceof RolldownUnavailable) {
      throw new CliError(`the project cannot be trusted: ${error.message}`, 1);
    }
    throw error;
  });
  if (review.state === 'no-project-code') {
    io.out(`${review.root} has no extensions or config of its own: nothing to trust.`);
    return 0;
  }
  if (review.problems.length > 0) throw new CliError(cannotTrust(review), 1);
  io.out(`Project: ${review.root}`);
  io.out(`State:   ${review.state}${review.trustedAt ? ` (trusted ${review.trustedAt})` : ''}`);
  const previous = trustedFiles(home, review.root);
  if (previous === undefined || options.list) {
    io.out(`Trusting it runs this code and applies this config (${review.files.length} file(s)):`);
    for (const file of review.files) io.out(`  ${printable(file)}`);
  }
  if (previous !== undefined) await showSinceTrust(io, home, review, previous, options);
  if (review.computedImports.length > 0) {
    io.out(
      `These import a module by a name computed when they run; that way only Node's built-in modules and the framework load: ${review.computedImports.join(', ')}`,
    );
  }
  for (const failure of review.bundleFailures) {
    io.out(`Cannot be bundled, so it will not load: ${printable(failure)}`);
  }
  if (review.configIsCode) {
    io.out('The config is code: the extensions its paths name are shown once it has run.');
  }
  const ask = async (question: string) => {
    if (options.yes) return true;
    if (!io.interactive)
      throw new CliError('not a terminal: re-run with --yes to trust these files', 2);
    const prompt = createInterface({ input: process.stdin, output: process.stdout });
    const answer = await prompt.question(question);
    prompt.close();
    return /^y(es)?$/i.test(answer.trim());
  };
  if (!(await ask('Trust this project? [y/N] '))) {
    io.out('Not trusted.');
    return 1;
  }
  let declined = false;
  const trusted = await trustProject(context.cwd, home, {
    reviewed: review.records,
    seen,
    async confirmMore(files, records) {
      io.out(`The config's paths add ${files.length} file(s)${previous ? '' : ':'}`);
      if (previous === undefined || options.list) {
        for (const file of files) io.out(`  ${printable(file)}`);
      }
      if (previous !== undefined) {
        const found = await changesSince(home, review.root, previous, records, false);
        io.out(
          `Of these, since it was trusted: ${found.length > 0 ? countChanges(found) : 'none changed'}.`,
        );
        showChanges(io, found);
      }
      declined = !(await ask('Trust these too? [y/N] '));
      return !declined;
    },
  }).catch((error: Error) => {
    throw error instanceof CliError ? error : new CliError(error.message, 1);
  });
  if (declined || !trusted.trusted) {
    io.out('Not trusted.');
    return 1;
  }
  const recorded = trustedFiles(home, trusted.root) ?? [];
  if (previous !== undefined && review.configIsCode) {
    // Only now is it known which of the files trusted before the config's paths still name.
    const kept = new Set(recorded.map((r) => r.path));
    const gone = previous.filter((r) => !kept.has(r.path)).map((r) => printable(r.path));
    if (gone.length > 0)
      io.out(`No longer covered, removed since it was trusted: ${gone.join(', ')}`);
  }
  await underTrustLock(home, () => {
    try {
      keepTrustedCopies(home, trusted.root, recorded);
    } catch (error) {
      io.err(`Note: no copies kept to diff against next time: ${(error as Error).message}`);
    }
  });
  io.out(
    `Trusted ${trusted.root} (fingerprint ${trusted.fingerprint.slice(0, 16)}). A change to these files waits for you to trust it again: until then, these run.`,
  );
  return 0;
}

/** What changed since the last trust, each small text file with its diff. */
async function showSinceTrust(
  io: Io,
  home: string,
  review: TrustReview,
  previous: readonly FileRecord[],
  options: TrustOptions,
): Promise<void> {
  // Files a code config's paths name are not in the review yet: they are not gone, only unknown.
  const shown = await changesSince(
    home,
    review.root,
    previous,
    review.records,
    !review.configIsCode,
  );
  const unchanged = review.records.length - shown.filter((c) => c.kind !== 'removed').length;
  const every = options.list ? '' : '; --list shows every file';
  const among = review.configIsCode ? ', of the files found before the config runs' : '';
  if (shown.length === 0) {
    io.out(`Nothing changed since it was trusted${among} (${unchanged} file(s)${every}).`);
    return;
  }
  io.out(
    `Since it was trusted${among}: ${countChanges(shown)} (${unchanged} file(s) unchanged${every}):`,
  );
  showChanges(io, shown);
}

async function changesSince(
  home: string,
  root: string,
  previous: readonly FileRecord[],
  now: readonly FileRecord[],
  withRemoved: boolean,
): Promise<FileChange[]> {
  const all = await changesSinceTrust(home, root, previous, now).catch((error: Error) => {
    throw new CliError(error.message, 1);
  });
  return withRemoved ? all : all.filter((c) => c.kind !== 'removed');
}

/** The files of the project's trust record; undefined when it has none to compare with. */
function trustedFiles(home: string, root: string): FileRecord[] | undefined {
  const record = readTrust(home)[root];
  return record === undefined || 'outdated' in record ? undefined : record.files;
}

async function revoke(context: CommandContext, io: Io): Promise<number> {
  const current = inspectProjectTrust({ cwd: context.cwd, home: context.home });
  const had = await revokeProjectTrust(context.cwd, context.home);
  io.out(
    had
      ? `Trust of ${current.root} revoked; its code and config will be ignored.`
      : `${current.root} was not trusted.`,
  );
  return 0;
}
