import { dirname, resolve } from 'node:path';
import { expandHome } from './locations.js';
import type { ExtensionsSection, HermesConfig } from './schema.js';
import { RESERVED_CONFIG_KEYS } from './schema.js';

/** A `paths` entry with the folder it is relative to: the folder of the file that named it. */
export interface PathEntry {
  spec: string;
  base: string;
  /** The config file that named it, for diagnostics. */
  file: string;
}

/** The `extensions` section every loader works from, merged from the config files. */
export interface EffectiveSection {
  section: ExtensionsSection;
  paths: PathEntry[];
  globalDir?: string;
}

/**
 * Global config first, project config over it. Scalars (`enabled`, `global_dir`, `project_local`)
 * are overridden; `paths` add up (each relative to its own file); `disabled` is the union, so a
 * project can disable more but never re-enable what the user disabled; per-extension settings
 * merge key by key.
 */
export function mergeConfigs(
  layers: ReadonlyArray<{ config: HermesConfig; file: string }>,
): EffectiveSection {
  const section: ExtensionsSection = {};
  const paths: PathEntry[] = [];
  const disabled = new Set<string>();
  let globalDir: string | undefined;
  for (const { config, file } of layers) {
    const layer = config.extensions ?? {};
    const base = dirname(file);
    for (const [key, value] of Object.entries(layer)) {
      if (key === 'paths') {
        for (const spec of layer.paths ?? []) paths.push({ spec, base, file });
      } else if (key === 'disabled') {
        for (const name of layer.disabled ?? []) disabled.add(name);
      } else if (key === 'global_dir' && typeof value === 'string') {
        globalDir = resolve(base, expandHome(value));
      } else if (key === 'chain_timeout_ms') {
        // Hook by hook: a project's limit for one hook leaves the global ones of the others.
        section.chain_timeout_ms = { ...section.chain_timeout_ms, ...(value as object) };
      } else if (RESERVED_CONFIG_KEYS.includes(key)) {
        section[key] = value;
      } else {
        section[key] = { ...(section[key] as object | undefined), ...(value as object) };
      }
    }
  }
  if (disabled.size > 0) section.disabled = [...disabled];
  return { section, paths, ...(globalDir === undefined ? {} : { globalDir }) };
}
