import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { findProjectConfig } from '../config/find-project-config.js';
import { loadConfigFile } from '../config/load-config.js';
import { expandHome } from '../config/locations.js';
import { mergeConfigs, type PathEntry } from '../config/merge.js';
import { declaredFiles } from '../declared/declarations.js';
import { discoverIn, discoverPath } from '../extensions/discovery.js';
import { isShippedSpec } from '../extensions/shipped.js';
import { insideRelative } from '../fs/paths.js';
import type { ModuleLoader } from '../modules/import-module.js';
import type { ReadGuard } from '../modules/read-guard.js';
import type { Coverage } from './coverage.js';

/**
 * The project's hook code and config that loading starts from: all of `.hermes/extensions/`
 * (nothing skipped: a `.cache` or `node_modules` in there can be imported like any file), the
 * project config file whole, `.hermes/config.yaml|yml`, and what config `paths` name inside the
 * project. Not the rest of `.hermes/`: extensions write there at run time (an audit log), and
 * loading reads nothing else there unless imported (then the import closure covers it).
 */
export function addProjectFiles(
  coverage: Coverage,
  cwd: string,
  home: string,
  paths: readonly string[],
): void {
  const root = coverage.root;
  const local = join(root, '.hermes');
  if (resolve(local) !== home && resolve(local) !== join(homedir(), '.hermes')) {
    coverage.add(join(local, 'extensions'));
    coverage.add(join(local, 'config.yaml'));
    coverage.add(join(local, 'config.yml'));
  }
  const config = findProjectConfig(cwd, root);
  if (config) coverage.add(config.file);
  for (const path of paths) coverage.add(path);
}

/**
 * The modules loading the project would run, each bundled apart: the entries of the extensions
 * in `.hermes/extensions/` and in the `paths` the project config names, and the config itself
 * when it is code.
 */
export function projectEntries(
  root: string,
  home: string,
  paths: readonly string[],
  cwd: string,
): string[] {
  const entries: string[] = [];
  const local = join(root, '.hermes');
  if (resolve(local) !== home && resolve(local) !== join(homedir(), '.hermes')) {
    entries.push(...discoverIn(join(local, 'extensions'), 'project').found.map((f) => f.entry));
  }
  for (const path of paths) {
    const found = discoverPath({ spec: path, base: root, file: '' }).found;
    entries.push(...found.map((f) => f.entry));
  }
  const config = findProjectConfig(cwd, root);
  if (config?.isCode) entries.push(config.file);
  return [...new Set(entries)].sort();
}

/** Whether a config `paths` entry came from the project's config rather than the user's. */
export function isProjectEntry(entry: PathEntry, projectConfigFile: string | undefined): boolean {
  return projectConfigFile !== undefined && entry.file === projectConfigFile;
}

/**
 * What the project config's `paths` name inside the project, as named: a folder of extensions is
 * recorded as the folder, so an extension added to it later changes the fingerprint too (and the
 * files its declarations name are added to `coverage`). Entries
 * outside the project are left out here; loading refuses them. A code config runs (under
 * `guard`: only what was reviewed may be read).
 */
export async function configPathsInside(
  coverage: Coverage,
  file: string,
  loader: ModuleLoader,
  guard: ReadGuard,
): Promise<string[]> {
  const config = await loadConfigFile(file, loader, { project: guard });
  // The policy files its declarations name are project code too (src/declared/): covered, not
  // loaded as extensions.
  for (const named of declaredFiles(config, file)) {
    if (insideRelative(coverage.root, named) !== undefined) coverage.add(named);
  }
  const inside = new Set<string>();
  for (const entry of mergeConfigs([{ config, file }]).paths) {
    // A shipped extension is the framework's code, not the project's, even when the framework is
    // installed in the project's node_modules (src/extensions/shipped.ts).
    if (isShippedSpec(entry.spec)) continue;
    const named = resolve(entry.base, expandHome(entry.spec));
    const locations = existsSync(named)
      ? [named]
      : discoverPath(entry).found.map((f) => f.location);
    for (const location of locations) {
      // Inside by name (a link there that leads out is the coverage's problem) or by real path.
      if (
        insideRelative(coverage.root, location) !== undefined ||
        coverage.relativeOf(location) !== undefined
      )
        inside.add(location);
    }
  }
  return [...inside].sort();
}
