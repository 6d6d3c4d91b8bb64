import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfigFile } from '../config/load-config.js';
import { hermesHome, projectBundleDir, transpileCacheDir } from '../config/locations.js';
import { declaredCandidates } from '../declared/declarations.js';
import type { ExtensionDefinition } from '../extensions/define.js';
import { DISK } from '../fs/file-view.js';
import { moduleLoader } from '../modules/import-module.js';

/**
 * The extension a config file declares under `extensions.<name>` (docs/policies.md), built as the
 * runtime builds it, for `testGuard` and `runGuardCases`: a Cedar policy, a decision service or a
 * judge tested with the same tables as a guard in code. Its files are read relative to the config
 * file, as the user's own; rejects with the load error (naming the file) when it cannot be built.
 */
export async function declaredExtension(
  configFile: string | URL,
  name: string,
): Promise<ExtensionDefinition<unknown>> {
  const file = configFile instanceof URL ? fileURLToPath(configFile) : resolve(configFile);
  const home = hermesHome();
  const config = await loadConfigFile(
    file,
    moduleLoader(transpileCacheDir(home), projectBundleDir(home)),
  );
  const { user } = await declaredCandidates([{ config, file, project: false }], {
    root: process.cwd(),
    view: DISK,
    guard: { root: process.cwd(), allowed: undefined, exempt: [] },
  });
  const candidate = user.find((c) => c.name === name);
  if (candidate === undefined) {
    throw new Error(
      `declaredExtension: ${file} declares no extension "${name}" (a section with a kind)`,
    );
  }
  if (candidate.definition === undefined) {
    throw new Error(
      `declaredExtension: ${candidate.loadError?.message ?? `cannot build "${name}"`}`,
    );
  }
  return candidate.definition;
}
