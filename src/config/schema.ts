import { z } from 'zod';
import { HOOK_NAMES, type HookName } from '../hooks/index.js';

/** Keys of the `extensions` section that configure loading, so no extension may be named so. */
export const RESERVED_CONFIG_KEYS: readonly string[] = [
  'enabled',
  'global_dir',
  'project_local',
  'paths',
  'disabled',
  'on_load_error',
  'chain_timeout_ms',
  'no_sandbox',
  'managed_only',
];

const chainTimeoutSchema = z
  .number({ error: 'must be a number of milliseconds' })
  .positive({ error: 'must be more than 0 ms' })
  .finite({ error: 'must be a finite number of milliseconds' })
  .optional();

/** `chain_timeout_ms`: a whole-chain time limit per hook point (src/chain/chain-deadline.ts). */
export const chainTimeoutsSchema = z.strictObject(
  Object.fromEntries(HOOK_NAMES.map((hook) => [hook, chainTimeoutSchema])) as Record<
    HookName,
    typeof chainTimeoutSchema
  >,
  { error: `chain_timeout_ms takes hook names (${HOOK_NAMES.join(', ')}) and milliseconds` },
);

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
    chain_timeout_ms: chainTimeoutsSchema.optional(),
    no_sandbox: z.enum(['refuse', 'run']).optional(),
    managed_only: z.boolean().optional(),
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
  /**
   * How long each hook's whole chain may take, in ms (docs/chain-semantics.md, A deadline for the
   * whole chain): past it the chain ends with the hook's fail rule. None by default.
   */
  chain_timeout_ms?: Partial<Record<HookName, number>>;
  /**
   * A shell command the protected-ground rule cannot show to leave protected ground alone, where
   * no OS sandbox can run (docs/trust.md, Protected ground): `refuse` (default), or `run` it
   * unsandboxed, accepting that it may change what decides the guards. Read from the user's own
   * config only (`NO_SANDBOX_IN_PROJECT`).
   */
  no_sandbox?: 'refuse' | 'run';
  /**
   * Only in the managed config (docs/teams.md, Managed policy): `true` runs the managed layer's
   * extensions alone, and no config or extension of the user's or the project's applies.
   */
  managed_only?: boolean;
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
