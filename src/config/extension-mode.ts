/**
 * `mode` in an extension's config section is the framework's key, not the extension's: it is read
 * here and taken out before the extension's `configSchema` sees the section, so every extension
 * can be shadowed whatever its schema (a strict one would refuse the key, a plain `z.object` drop
 * it unseen). docs/configuration.md, Shadow mode.
 */
export const MODE_KEY = 'mode';

/** `enforce` (the default): decisions apply. `shadow`: recorded, not applied (src/chain/shadow.ts). */
export const EXTENSION_MODES = ['enforce', 'shadow'] as const;
export type ExtensionMode = (typeof EXTENSION_MODES)[number];

export type SplitSection =
  | { mode: ExtensionMode; config: unknown }
  /** A `mode` that is neither: refused, so a typo never leaves a guard in a mode nobody chose. */
  | { problem: string };

/** The section's mode, and the section without it for the extension. */
export function splitMode(name: string, section: unknown): SplitSection {
  if (section === null || typeof section !== 'object' || !Object.hasOwn(section, MODE_KEY)) {
    return { mode: 'enforce', config: section };
  }
  const { [MODE_KEY]: mode, ...rest } = section as Record<string, unknown>;
  if (mode === 'enforce' || mode === 'shadow') return { mode, config: rest };
  return {
    problem: `extensions.${name}.${MODE_KEY}: expected "enforce" or "shadow", got ${JSON.stringify(mode)}`,
  };
}

/** The section as the extension's schema sees it: without `mode`. */
export function withoutMode(section: unknown): unknown {
  if (section === null || typeof section !== 'object' || !Object.hasOwn(section, MODE_KEY)) {
    return section;
  }
  const { [MODE_KEY]: _mode, ...rest } = section as Record<string, unknown>;
  return rest;
}
