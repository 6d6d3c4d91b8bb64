import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { findProjectConfig } from '../config/find-project-config.js';
import { loadConfigFile } from '../config/load-config.js';
import { expandHome, findProjectRoot, hermesHome, transpileCacheDir } from '../config/locations.js';
import { mergeConfigs } from '../config/merge.js';
import { discoverPath } from '../extensions/discovery.js';
import { moduleLoader } from '../extensions/loading/import-module.js';
import { collectFiles, fingerprintFiles } from './fingerprint.js';
import { readTrust, writeTrust } from './store.js';

export interface ProjectTrust {
  /** The project root the trust is recorded for. */
  root: string;
  trusted: boolean;
  /**
   * `no-project-code`: nothing to trust; `trusted`: recorded and unchanged; `untrusted`: never
   * trusted; `changed`: trusted once, but its code or config changed since; `override`:
   * trusted for this run by `HERMES_TRUST_PROJECT=1` or `trust: true`.
   */
  state: 'no-project-code' | 'trusted' | 'untrusted' | 'changed' | 'override';
  /** The project's hook code and config: what trusting it means running. */
  files: string[];
  fingerprint: string;
  /** When it was trusted, if it was. */
  trustedAt?: string;
}

interface TrustOptions {
  cwd?: string;
  home?: string;
}

/** Where this project's trust stands, computed from the files as they are now. Runs no project code. */
export function inspectProjectTrust(options: TrustOptions = {}): ProjectTrust {
  const home = hermesHome(options.home);
  const cwd = resolve(options.cwd ?? process.cwd());
  const root = findProjectRoot(cwd, home);
  const record = readTrust(home)[root];
  const files = projectCodeFiles(cwd, root, home, record?.paths ?? []);
  const fingerprint = fingerprintFiles(root, files);
  const base = { root, files, fingerprint };
  if (files.length === 0) return { ...base, trusted: true, state: 'no-project-code' };
  if (record === undefined) return { ...base, trusted: false, state: 'untrusted' };
  if (record.fingerprint !== fingerprint) {
    return { ...base, trusted: false, state: 'changed', trustedAt: record.trustedAt };
  }
  return { ...base, trusted: true, state: 'trusted', trustedAt: record.trustedAt };
}

export function isProjectTrusted(cwd?: string, home?: string): boolean {
  return inspectProjectTrust({ cwd, home }).trusted;
}

/**
 * Records the project as trusted with a fingerprint of its hook code and config as they are now.
 * This reads the project config (running a code config: trusting is consenting to that) to learn
 * which `paths` inside the project it names, so changes there untrust the project too. (Paths in
 * the global config are the user's own, trusted by placement like the global extensions folder.)
 */
export async function trustProject(cwd?: string, home?: string): Promise<ProjectTrust> {
  const resolvedHome = hermesHome(home);
  const resolvedCwd = resolve(cwd ?? process.cwd());
  const root = findProjectRoot(resolvedCwd, resolvedHome);
  const projectConfig = findProjectConfig(resolvedCwd, root);
  const paths = projectConfig
    ? await configPathsInside(root, projectConfig.file, resolvedHome)
    : [];
  const files = projectCodeFiles(resolvedCwd, root, resolvedHome, paths);
  const records = readTrust(resolvedHome);
  records[root] = {
    fingerprint: fingerprintFiles(root, files),
    paths,
    trustedAt: new Date().toISOString(),
  };
  writeTrust(resolvedHome, records);
  return inspectProjectTrust({ cwd: resolvedCwd, home: resolvedHome });
}

/** Forgets the project's trust. Returns whether there was any. */
export function revokeProjectTrust(cwd?: string, home?: string): boolean {
  const resolvedHome = hermesHome(home);
  const root = findProjectRoot(resolve(cwd ?? process.cwd()), resolvedHome);
  const records = readTrust(resolvedHome);
  if (!(root in records)) return false;
  delete records[root];
  writeTrust(resolvedHome, records);
  return true;
}

/**
 * What the project config's `paths` name inside the project, as named: a folder of extensions is
 * recorded as the folder, so an extension added to it later changes the fingerprint too.
 */
async function configPathsInside(root: string, file: string, home: string): Promise<string[]> {
  const config = await loadConfigFile(file, moduleLoader(transpileCacheDir(home)));
  const inside = new Set<string>();
  for (const entry of mergeConfigs([{ config, file }]).paths) {
    const named = resolve(entry.base, expandHome(entry.spec));
    const locations = existsSync(named)
      ? [named]
      : discoverPath(entry).found.map((f) => f.location);
    for (const location of locations) if (isInside(root, location)) inside.add(location);
  }
  return [...inside].sort();
}

function isInside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

/** The project's `.hermes/` folder, its config file, and the project paths config names. */
function projectCodeFiles(cwd: string, root: string, home: string, paths: readonly string[]) {
  const local = join(root, '.hermes');
  const config = findProjectConfig(cwd, root);
  return collectFiles([
    ...(resolve(local) === home || resolve(local) === join(homedir(), '.hermes') ? [] : [local]),
    ...(config ? [config.file] : []),
    ...paths,
  ]);
}
