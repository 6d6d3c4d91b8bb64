import { withoutMode } from '../config/extension-mode.js';
import type { ExtensionsSection } from '../config/schema.js';
import { RESERVED_CONFIG_KEYS } from '../config/schema.js';
import { didYouMean } from '../config/suggest.js';
import { describeUnknownKey, findUnknownKeys } from '../config/unknown-keys.js';
import type { ExtensionDefinition } from '../extensions/define.js';
import type { Diagnostic } from '../extensions/types.js';

/** One config file's `extensions` section, so what is wrong in it can name the file. */
export interface ConfigSource {
  section: ExtensionsSection;
  /** The config file; absent for config handed over in memory. */
  file?: string;
  /** How messages name it: the file, or `createRuntime({ config })`. */
  where: string;
}

/**
 * Config that nothing reads is most likely a typo: say so instead of ignoring it. File by file,
 * so each warning names the file to correct: a section for an extension that was not found, a
 * disabled name that was not found, and keys of an extension's section its `configSchema` has no
 * place for.
 */
export function reportConfigProblems(
  sources: readonly ConfigSource[],
  extensions: ReadonlyMap<string, ExtensionDefinition<unknown> | undefined>,
  diagnostics: Diagnostic[],
): void {
  const names = [...extensions.keys()];
  const unknown = (name: string, candidates: readonly string[]) => {
    const suggestion = didYouMean(name, candidates);
    return suggestion ? ` (did you mean "${suggestion}"?)` : '';
  };
  for (const { section, file, where } of sources) {
    const at = file === undefined ? {} : { file };
    for (const [key, value] of Object.entries(section)) {
      if (RESERVED_CONFIG_KEYS.includes(key)) continue;
      if (!extensions.has(key)) {
        diagnostics.push({
          code: 'CONFIG_UNKNOWN_KEY',
          kind: 'unknown-config-key',
          severity: 'warning',
          ...at,
          message: `extensions.${key} in ${where} configures an extension that was not found${unknown(key, [...names, ...RESERVED_CONFIG_KEYS])}`,
        });
        continue;
      }
      const schema = extensions.get(key)?.configSchema;
      // `mode` is the framework's key (config/extension-mode.ts), never the schema's.
      for (const found of findUnknownKeys(schema, withoutMode(value), ['extensions', key])) {
        diagnostics.push({
          code: 'CONFIG_UNKNOWN_KEY',
          kind: 'unknown-config-key',
          severity: 'warning',
          extension: key,
          ...at,
          message: describeUnknownKey(found, where),
        });
      }
    }
    for (const name of section.disabled ?? []) {
      if (extensions.has(name)) continue;
      diagnostics.push({
        code: 'DISABLED_NOT_FOUND',
        severity: 'warning',
        ...at,
        message: `extensions.disabled in ${where} names "${name}", which was not found${unknown(name, names)}`,
      });
    }
  }
}

/**
 * The config files an extension's settings at these key paths come from, for a message that says
 * which file to correct. Per-extension settings merge key by key (`mergeConfigs`), so a key's value
 * is the last file's that sets it; a path no file sets (a required key left out, the section
 * itself) names every file that configures the extension. Config handed over in memory has none.
 */
export function configFilesOf(
  name: string,
  paths: ReadonlyArray<readonly PropertyKey[]>,
  sources: readonly ConfigSource[],
): string[] {
  const configuring = sources.filter(
    (source) => source.file !== undefined && Object.hasOwn(source.section, name),
  );
  const files = new Set<string>();
  for (const [key] of paths) {
    const setting = configuring.findLast((source) => {
      const own = source.section[name];
      return (
        own !== null && typeof own === 'object' && key !== undefined && Object.hasOwn(own, key)
      );
    });
    for (const source of setting ? [setting] : configuring) files.add(source.file as string);
  }
  return [...files];
}
