import { z } from 'zod';

/** Keys of the `extensions` section that configure loading, so no extension may be named so. */
export const RESERVED_CONFIG_KEYS: readonly string[] = [
  'enabled',
  'global_dir',
  'project_local',
  'paths',
  'disabled',
  'on_load_error',
];

const extensionConfigSchema = z.record(z.string(), z.unknown(), {
  error: 'per-extension config must be a mapping of keys to values',
});

/** The `extensions` section, snake_case as config files spell it (docs/configuration.md, Where extensions and config come from). */
const extensionsSectionSchema = z
  .object({
    enabled: z.boolean().optional(),
    global_dir: z.string().optional(),
    project_local: z.boolean().optional(),
    paths: z.array(z.string()).optional(),
    disabled: z.array(z.string()).optional(),
    on_load_error: z.enum(['block', 'warn']).optional(),
  })
  .catchall(extensionConfigSchema);

/**
 * A whole config file. Other top-level sections are allowed and left alone: the global
 * `config.yaml` is shared with the rest of the agent's settings.
 */
export const hermesConfigSchema = z.looseObject({
  extensions: extensionsSectionSchema.optional(),
});

export interface ExtensionsSection {
  enabled?: boolean;
  global_dir?: string;
  project_local?: boolean;
  paths?: string[];
  disabled?: string[];
  /**
   * What an enabled extension that failed to load means for tool calls: `block` (default) refuses
   * every one, naming the extension, so a broken guard never lets a write through; `warn` lets
   * them run without it.
   */
  on_load_error?: 'block' | 'warn';
  [extensionName: string]: unknown;
}

export interface HermesConfig {
  extensions?: ExtensionsSection;
  [section: string]: unknown;
}

/** Typing helper for `hermes.config.ts`. */
export function defineConfig(config: HermesConfig): HermesConfig {
  return config;
}
