import { resolve } from 'node:path';
import { findProjectRoot, hermesHome } from '../config/locations.js';
import { projectEntries } from './project-files.js';
import { readTrust } from './store.js';

/**
 * The modules of the project's own code that are bundled to be trusted and loaded: its
 * `.hermes/extensions/`, a code config, and what the project config's `paths` named when it was
 * last trusted (before that they are known only once its config is read). Found without reading
 * or running any of them: what `doctor` asks to know whether the project needs rolldown.
 */
export function projectCodeEntries(options: { cwd?: string; home?: string } = {}): string[] {
  const home = hermesHome(options.home);
  const cwd = resolve(options.cwd ?? process.cwd());
  const root = findProjectRoot(cwd, home);
  const record = readTrust(home)[root];
  const paths = record !== undefined && 'paths' in record ? record.paths : [];
  return projectEntries(root, home, paths, cwd);
}
