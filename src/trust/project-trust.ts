import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { findProjectConfig } from '../config/find-project-config.js';
import {
  findProjectRoot,
  hermesHome,
  projectBundleDir,
  transpileCacheDir,
} from '../config/locations.js';
import { moduleLoader } from '../modules/import-module.js';
import type { ProjectBundle } from '../modules/project-code/bundle.js';
import { keepBundle } from '../modules/project-code/kept-bundles.js';
import { frameworkReadFolders, type ReadGuard } from '../modules/read-guard.js';
import { addBundleInputs } from './bundle-inputs.js';
import { Coverage } from './coverage.js';
import { addProjectFiles, configPathsInside, projectEntries } from './project-files.js';
import {
  compareRecords,
  describeChanges,
  type FileRecord,
  fingerprintOf,
  hasChanges,
  type TrustChanges,
} from './records.js';
import {
  type OutdatedRecord,
  readTrust,
  sameTrustRecord,
  type TrustRecord,
  underTrustLock,
  writeTrust,
} from './store.js';
import { keepTrustedCopies, pruneTrustedCopies } from './trusted-copies.js';

export interface ProjectTrust {
  /** The project root the trust is recorded for. */
  root: string;
  trusted: boolean;
  /**
   * `no-project-code`: nothing to trust; `trusted`: recorded and unchanged; `untrusted`: never
   * trusted; `changed`: trusted once, but its code or config changed since (or was trusted by an
   * older version, which recorded too little to check); `unreadable`: some of its code cannot
   * be fingerprinted (see `problems`), so it cannot be trusted; `override`: trusted for this run
   * by `HERMES_TRUST_PROJECT=1` or `trust: true`.
   */
  state: 'no-project-code' | 'trusted' | 'untrusted' | 'changed' | 'unreadable' | 'override';
  /** The project's hook code and config (absolute paths): what trusting it means running. */
  files: string[];
  /** The same files with their sizes and digests, relative to the root. */
  records: FileRecord[];
  fingerprint: string;
  /** For `changed`: which files differ from what was trusted. */
  changes?: TrustChanges;
  /** Why the project's code cannot be fingerprinted (links out of it, unreadable, too much). */
  problems: string[];
  /** When it was trusted, if it was. */
  trustedAt?: string;
}

interface TrustOptions {
  cwd?: string;
  home?: string;
  /** The project root when the host pinned it (loadRuntime's `root`); else found from `cwd`. */
  root?: string;
}

/**
 * Where this project's trust stands, from the files as they are now: the project's own hook code
 * and config, and every other file the trust record lists (what its code imports), re-read and
 * compared by digest. Runs no project code and parses none.
 */
export function inspectProjectTrust(options: TrustOptions = {}): ProjectTrust {
  const home = hermesHome(options.home);
  const cwd = resolve(options.cwd ?? process.cwd());
  const root = options.root === undefined ? findProjectRoot(cwd, home) : resolve(options.root);
  const record = readTrust(home)[root];
  const coverage = new Coverage(root);
  const trusted = record && !('outdated' in record) ? record : undefined;
  addProjectFiles(coverage, cwd, home, trusted?.paths ?? []);
  const hasCode = coverage.size > 0 || coverage.problems.length > 0;
  for (const file of trusted?.files ?? []) {
    coverage.add(join(coverage.realRoot, file.path), { outside: true });
  }
  const base = summary(coverage);
  // All of it removed since it was trusted is a change like any other: it awaits review too.
  if (!hasCode && !(trusted !== undefined && trusted.files.length > 0)) {
    return { ...base, trusted: true, state: 'no-project-code' };
  }
  if (base.problems.length > 0) return { ...base, trusted: false, state: 'unreadable' };
  if (record === undefined) return { ...base, trusted: false, state: 'untrusted' };
  const at = record.trustedAt ? { trustedAt: record.trustedAt } : {};
  if (trusted === undefined) return { ...base, ...at, trusted: false, state: 'changed' };
  const changes = compareRecords(trusted.files, base.records);
  if (hasChanges(changes)) {
    return { ...base, ...at, trusted: false, state: 'changed', changes };
  }
  return { ...base, ...at, trusted: true, state: 'trusted' };
}

/**
 * The project's trust for one run: as recorded, or `override` when the run trusts it anyway
 * (`HERMES_TRUST_PROJECT=1`, or `trust: true`). What loads the project and what reports on it
 * both ask here, so they never disagree.
 */
export function trustForRun(options: TrustOptions & { trust?: boolean } = {}): ProjectTrust {
  const trust = inspectProjectTrust(options);
  if (trust.trusted || !(options.trust || process.env.HERMES_TRUST_PROJECT === '1')) return trust;
  return { ...trust, trusted: true, state: 'override' };
}

export function isProjectTrusted(cwd?: string, home?: string): boolean {
  return inspectProjectTrust({ cwd, home }).trusted;
}

/** What trusting the project would record, found without running any of its code. */
export interface TrustReview extends ProjectTrust {
  /** The project config is code: the `paths` it names are known only once it runs. */
  configIsCode: boolean;
  /** Modules that import a name computed when they run: only built-ins and the framework load. */
  computedImports: string[];
  /** Entries that cannot be bundled (a syntax error, an import that does not resolve). */
  bundleFailures: string[];
}

/**
 * The files trusting the project covers, for the user to review before saying yes: its hook
 * code and config, the `paths` a data config names, and every file bundling its modules reads
 * (bundled, not run; see bundle-inputs.ts). A code config's own `paths` are found by
 * `trustProject`.
 */
export async function reviewProject(options: TrustOptions = {}): Promise<TrustReview> {
  const { bundles: _made, ...review } = await reviewWithBundles(options);
  return review;
}

/** The review, and the bundle made of each entry while finding what it reads. */
async function reviewWithBundles(
  options: TrustOptions,
): Promise<TrustReview & { bundles: Map<string, ProjectBundle> }> {
  const home = hermesHome(options.home);
  const cwd = resolve(options.cwd ?? process.cwd());
  const current = inspectProjectTrust({ cwd, home });
  const coverage = new Coverage(current.root);
  addProjectFiles(coverage, cwd, home, []);
  const config = findProjectConfig(cwd, current.root);
  const paths: string[] = [];
  if (config && !config.isCode && coverage.problems.length === 0) {
    const guard = guardFor(current.root, home, undefined);
    paths.push(...(await configPathsInside(coverage, config.file, loaderFor(home), guard)));
    for (const path of paths) coverage.add(path);
  }
  const bundles =
    coverage.problems.length === 0
      ? await addBundleInputs(coverage, projectEntries(current.root, home, paths, cwd))
      : { computedImports: [], failures: [], bundles: new Map<string, ProjectBundle>() };
  return {
    ...current,
    ...summary(coverage),
    configIsCode: config?.isCode ?? false,
    computedImports: bundles.computedImports,
    bundleFailures: bundles.failures,
    bundles: bundles.bundles,
  };
}

export interface TrustProjectOptions {
  /** The files the user reviewed: trusting fails if any of them changed since. */
  reviewed?: readonly FileRecord[];
  /**
   * The trust records as they were when the review began (default: when this call begins).
   * Trusting fails, recording nothing, if the project's record changed since: a revoke made
   * while it was reviewed wins, and so does another trust, which reviewed other files.
   */
  seen?: Readonly<Record<string, TrustRecord | OutdatedRecord>>;
  /**
   * Asked when a code config's `paths` bring in files beyond the review (they are known only once
   * it runs), with the records that will be kept of them; answering false trusts nothing. Without
   * it they are trusted too.
   */
  confirmMore?: (files: string[], records: FileRecord[]) => Promise<boolean>;
}

/**
 * Records the project as trusted with every file of its hook code and config as they are now,
 * and every file inside the project they import. A code config runs here (trusting is consenting
 * to that), under a guard that lets it read only what was reviewed, to learn which `paths` inside
 * the project it names. (Paths in the global config are the user's own, trusted by placement like
 * the global extensions folder.) Throws when the code cannot be fingerprinted; when
 * `confirmMore` says no, records nothing and returns the state as it was.
 */
export async function trustProject(
  cwd?: string,
  home?: string,
  options: TrustProjectOptions = {},
): Promise<ProjectTrust> {
  const resolvedHome = hermesHome(home);
  const resolvedCwd = resolve(cwd ?? process.cwd());
  const seen = options.seen ?? readTrust(resolvedHome);
  const review = await reviewWithBundles({ cwd: resolvedCwd, home: resolvedHome });
  if (review.problems.length > 0) throw new Error(cannotTrust(review));
  if (options.reviewed) {
    const changes = compareRecords(options.reviewed, review.records);
    if (hasChanges(changes)) {
      throw new Error(`files changed while they were reviewed; run the trust command again`);
    }
  }
  let files = review.records;
  let bundles = review.bundles;
  let paths: string[] = [];
  const config = findProjectConfig(resolvedCwd, review.root);
  if (config?.isCode) {
    const coverage = new Coverage(review.root);
    const guard = guardFor(review.root, resolvedHome, review.records);
    paths = await configPathsInside(coverage, config.file, loaderFor(resolvedHome), guard);
    addProjectFiles(coverage, resolvedCwd, resolvedHome, paths);
    ({ bundles } = await addBundleInputs(
      coverage,
      projectEntries(review.root, resolvedHome, paths, resolvedCwd),
    ));
    if (coverage.problems.length > 0)
      throw new Error(cannotTrust({ ...review, ...summary(coverage) }));
    files = coverage.list();
    const reviewed = new Set(review.records.map((r) => r.path));
    const added = files.filter((r) => !reviewed.has(r.path));
    const more = added.map((r) => join(review.root, r.path));
    if (more.length > 0 && options.confirmMore && !(await options.confirmMore(more, added))) {
      return inspectProjectTrust({ cwd: resolvedCwd, home: resolvedHome });
    }
  } else if (config) {
    paths = await configPathsInside(
      new Coverage(review.root),
      config.file,
      loaderFor(resolvedHome),
      guardFor(review.root, resolvedHome, undefined),
    );
  }
  const record: TrustRecord = {
    fingerprint: fingerprintOf(files),
    files,
    paths,
    trustedAt: new Date().toISOString(),
  };
  await underTrustLock(resolvedHome, () => {
    const records = readTrust(resolvedHome);
    if (!sameTrustRecord(records[review.root], seen[review.root])) {
      throw new Error(
        `the trust of ${review.root} was changed by another command (revoked, or given) while this one reviewed it; nothing was recorded: run the trust command again`,
      );
    }
    records[review.root] = record;
    writeTrust(resolvedHome, records);
    // Copies of the small files, for the next review's diff and for the held state
    // (held-state.ts): without one, a change later refuses every tool call rather than fall open.
    try {
      keepTrustedCopies(resolvedHome, review.root, files);
    } catch {
      // Not kept (a folder in the way): the held state says which copy it misses.
    }
  });
  // Made from the bytes just recorded: the next load runs them without bundling again.
  for (const [entry, bundle] of bundles) keepBundle(projectBundleDir(resolvedHome), entry, bundle);
  return inspectProjectTrust({ cwd: resolvedCwd, home: resolvedHome });
}

/**
 * Forgets the project's trust, and prunes the copies no record needs any more. Resolves to
 * whether there was any.
 */
export function revokeProjectTrust(cwd?: string, home?: string): Promise<boolean> {
  const resolvedHome = hermesHome(home);
  const root = findProjectRoot(resolve(cwd ?? process.cwd()), resolvedHome);
  return underTrustLock(resolvedHome, () => {
    const records = readTrust(resolvedHome);
    if (!(root in records)) return false;
    delete records[root];
    writeTrust(resolvedHome, records);
    try {
      pruneTrustedCopies(resolvedHome);
    } catch {
      // A copy left behind is pruned by the next trust; the trust itself is gone.
    }
    return true;
  });
}

/**
 * The guard a project load runs under: only the files of `records`, with their digests (none
 * given: any file, as when trust is given for one run).
 */
export function guardFor(
  root: string,
  home: string,
  records: readonly FileRecord[] | undefined,
): ReadGuard {
  return {
    root,
    allowed: records && new Map(records.map((r) => [r.path, r.sha256])),
    exempt: frameworkReadFolders(home, createRequire(import.meta.url).resolve('jiti')),
  };
}

/**
 * How an untrusted project stands, to follow its name: `is not trusted yet`, or `is not
 * trusted (why)` — said once: never `is not trusted (it has not been trusted)`.
 */
export function untrustedStanding(trust: ProjectTrust): string {
  return trust.state === 'changed' || trust.state === 'unreadable'
    ? `is not trusted (${whyUntrusted(trust)})`
    : 'is not trusted yet';
}

/** Why a project is not trusted, in a phrase: `its hook code changed since ...: 1 changed (a.ts)`. */
export function whyUntrusted(trust: ProjectTrust): string {
  switch (trust.state) {
    case 'changed':
      return trust.changes && hasChanges(trust.changes)
        ? `its hook code or config changed since it was trusted on ${trust.trustedAt}: ${describeChanges(trust.changes)}`
        : 'it was trusted by an older version of hermes-extensions, which recorded too little to check; trust it again';
    case 'unreadable':
      return 'some of its code cannot be fingerprinted';
    default:
      return 'it has not been trusted';
  }
}

export function cannotTrust(trust: Pick<ProjectTrust, 'root' | 'problems'>): string {
  return `the code of project ${trust.root} cannot be fingerprinted, so it cannot be trusted:\n${trust.problems.map((p) => `  ${p}`).join('\n')}`;
}

function summary(coverage: Coverage) {
  const records = coverage.list();
  return {
    root: coverage.root,
    records,
    files: records.map((r) => join(coverage.root, r.path)),
    fingerprint: fingerprintOf(records),
    problems: [...coverage.problems],
  };
}

function loaderFor(home: string) {
  return moduleLoader(transpileCacheDir(home), projectBundleDir(home));
}
