import { loadConfigFile } from '../config/load-config.js';
import { isFile } from '../config/locations.js';
import { mergeConfigs } from '../config/merge.js';
import type { HermesConfig } from '../config/schema.js';
import { declaredCandidates } from '../declared/declarations.js';
import { type DiscoveredExtension, discoverIn, discoverPath } from '../extensions/discovery.js';
import { loadExtension } from '../extensions/load-extension.js';
import { byName } from '../extensions/order.js';
import type { Diagnostic, ExtensionCandidate } from '../extensions/types.js';
import { DISK } from '../fs/file-view.js';
import type { ModuleLoader } from '../modules/import-module.js';
import {
  type ManagedLocation,
  managedConfigFile,
  managedExtensionsDir,
  managedLocation,
} from '../policy/protected/managed-location.js';
import type { LowerLayer } from './managed-rules.js';

/** The managed layer as one run finds it (docs/teams.md, Managed policy). */
export interface ManagedLayer {
  location: ManagedLocation;
  /** Its config file, named even when there is none. */
  file: string;
  /** The config, when the file is there. */
  config?: HermesConfig;
  /** `managed_only: true`: no lower layer's extension runs. */
  only: boolean;
}

/**
 * The managed folder's config, read before any other (src/config/managed-location.ts for where
 * it is). A config that cannot be read rejects, as the user's does: the hook then refuses, so a
 * broken managed config never leaves its guards off.
 */
export async function readManagedLayer(
  loader: ModuleLoader,
  watch: (path: string) => void,
  diagnostics: Diagnostic[],
): Promise<ManagedLayer> {
  const location = managedLocation();
  if (location.refused !== undefined) {
    diagnostics.push({
      code: 'MANAGED_LOCATION',
      severity: 'error',
      message: location.refused,
    });
  }
  const file = managedConfigFile(location);
  watch(file);
  watch(managedExtensionsDir(location));
  if (!isFile(file)) return { location, file, only: false };
  const config = await loadConfigFile(file, loader);
  return { location, file, config, only: config.extensions?.managed_only === true };
}

/** The managed layer as a config layer, first of all: `[]` when it has no config file. */
export function managedConfigLayers(managed: ManagedLayer): LowerLayer[] {
  return managed.config === undefined ? [] : [{ config: managed.config, file: managed.file }];
}

/**
 * The managed layer's extensions, loaded before any other: its folder's `extensions/`, its
 * config's `paths` and its declarations. Each is marked managed, whatever its source.
 */
export async function managedCandidates(
  managed: ManagedLayer,
  loader: ModuleLoader,
  watch: (path: string) => void,
  diagnostics: Diagnostic[],
): Promise<ExtensionCandidate[]> {
  const layers = managedConfigLayers(managed);
  const found: DiscoveredExtension[] = [];
  const take = ({ found: more, problems }: ReturnType<typeof discoverIn>) => {
    diagnostics.push(...problems);
    found.push(...more);
  };
  take(discoverIn(managedExtensionsDir(managed.location), 'managed'));
  for (const entry of mergeConfigs(layers).paths) {
    watch(entry.base);
    take(discoverPath(entry));
  }
  const declared = await declaredCandidates(
    layers.map((layer) => ({ ...layer, project: false })),
    // Not the project's: neither its view nor its guard reads anything for them.
    {
      root: managed.location.dir,
      view: DISK,
      guard: { root: managed.location.dir, allowed: undefined, exempt: [] },
    },
  );
  diagnostics.push(...declared.diagnostics);
  const candidates: ExtensionCandidate[] = [...declared.user];
  for (const one of found) {
    watch(one.location);
    candidates.push(await loadExtension(one, loader));
  }
  return candidates.sort(byName).map((candidate) => ({ ...candidate, managed: true }));
}

/**
 * A lower layer's config under `managed_only`: nothing of it applies. One `MANAGED_ONLY`
 * diagnostic says so for each file that was there.
 */
export function ignoredUnderManagedOnly(
  managed: ManagedLayer,
  lower: readonly LowerLayer[],
  diagnostics: Diagnostic[],
): void {
  for (const { file } of lower) {
    diagnostics.push({
      code: 'MANAGED_ONLY',
      severity: 'warning',
      file,
      message: `${file} is ignored: ${managed.file} sets managed_only, so only the managed layer's config and extensions apply`,
    });
  }
}

/** `managed_only` is the managed layer's to set: in a lower layer it is taken out, and said so. */
export function withoutManagedOnly(
  layer: LowerLayer,
  managed: ManagedLayer,
  diagnostics: Diagnostic[],
): LowerLayer {
  const section = layer.config.extensions;
  if (section?.managed_only === undefined) return layer;
  diagnostics.push({
    code: 'MANAGED_OVERRIDE',
    severity: 'warning',
    file: layer.file,
    message: `extensions.managed_only in ${layer.file} is ignored: only the managed config (${managed.file}) may set it`,
  });
  const { managed_only: _ignored, ...rest } = section;
  return { ...layer, config: { ...layer.config, extensions: rest } };
}
