import { dirname, join } from 'node:path';
import { isFile } from '../config/locations.js';
import type { BundleInput, ProjectBundle } from '../modules/project-code/bundle.js';
import { RolldownUnavailable, usableRolldown } from '../modules/project-code/rolldown-peer.js';
import type { Coverage } from './coverage.js';

/** What bundling the project's modules for the review found. */
export interface BundleReview {
  /** Modules that import a name computed when they run (only built-ins and the framework load). */
  computedImports: string[];
  /** Entries that could not be bundled: they will fail to load, with this message. */
  failures: string[];
  /** The bundle made of each entry: what loading will run while the record holds its inputs. */
  bundles: Map<string, ProjectBundle>;
}

/**
 * Adds to `coverage` every file that bundling `entries` (the project's extension entries and its
 * code config) reads — the record is what the loader reads, not a guess at it — and the
 * `package.json` files that chose them (each package's own, and the nearest one above a `.js`
 * file, whose `type` says how it is read). A file outside the project root (a monorepo's
 * `../shared`, a `node_modules` above the root) is recorded too, by its path from the root, and
 * checked like the rest. Runs none of the project's code.
 */
export async function addBundleInputs(
  coverage: Coverage,
  entries: readonly string[],
): Promise<BundleReview> {
  const { bundleProjectModule } = await import('../modules/project-code/bundle.js');
  const review: BundleReview = { computedImports: [], failures: [], bundles: new Map() };
  if (entries.length > 0) requireBundler(coverage, entries);
  const computed = new Set<string>();
  for (const entry of [...new Set(entries)].sort()) {
    let inputs: BundleInput[];
    try {
      const bundle = await bundleProjectModule(entry, { root: coverage.root });
      inputs = bundle.inputs;
      review.bundles.set(entry, bundle);
      for (const path of bundle.computedImports) computed.add(path);
    } catch (error) {
      review.failures.push(`${coverage.display(entry)}: ${(error as Error).message}`);
      continue;
    }
    for (const input of inputs) {
      coverage.addRead(input);
      addManifests(coverage, input.file);
    }
  }
  review.computedImports = [...computed].sort();
  return review;
}

/**
 * Without rolldown (or with another version) no entry can be bundled, so what they import cannot
 * be found, and a record made now would hold the entries alone: every load would then refuse
 * their imports as untrusted. Trusting fails instead, naming the files and what to install.
 */
function requireBundler(coverage: Coverage, entries: readonly string[]): void {
  try {
    usableRolldown();
  } catch (error) {
    if (!(error instanceof RolldownUnavailable)) throw error;
    const files = [...new Set(entries)].sort().map((entry) => coverage.display(entry));
    throw new RolldownUnavailable(
      error.problem,
      error.advice,
      `the project's code (${files.join(', ')}) is checked and loaded by bundling it with rolldown, and ${error.problem}: ${error.advice}`,
    );
  }
}

/**
 * The `package.json` that decides how `file` is read: its package's own inside `node_modules`
 * (its `exports`/`main` chose the file), else the nearest above it (its `type`).
 */
function addManifests(coverage: Coverage, file: string): void {
  const inPackage = /^(.*[\\/]node_modules[\\/](?:@[^\\/]+[\\/])?[^\\/]+)[\\/]/.exec(file);
  if (inPackage?.[1]) {
    const manifest = join(inPackage[1], 'package.json');
    if (isFile(manifest)) coverage.add(manifest, { outside: true });
    return;
  }
  if (!file.endsWith('.js')) return;
  let dir = dirname(file);
  for (;;) {
    const manifest = join(dir, 'package.json');
    if (isFile(manifest)) {
      coverage.add(manifest, { outside: true });
      return;
    }
    if (dir === coverage.realRoot || dirname(dir) === dir) return;
    dir = dirname(dir);
  }
}
