import { MODE_KEY } from '../config/extension-mode.js';
import type { ExtensionsSection, HermesConfig } from '../config/schema.js';
import type { Diagnostic } from '../extensions/types.js';

/** A config file of the user or the project, under the managed layer. */
export interface LowerLayer {
  config: HermesConfig;
  file: string;
}

/** What the managed layer holds that lower layers may not undo. */
export interface ManagedRules {
  /** The managed config file (named in every message), whether or not it exists. */
  file: string;
  /** The managed layer's own `extensions` section. */
  section: ExtensionsSection;
  /** The names of the extensions the managed layer loads. */
  names: ReadonlySet<string>;
}

/**
 * The user's and the project's config with what would weaken a managed extension taken out, and
 * a diagnostic (`MANAGED_OVERRIDE`) for each thing taken out (docs/teams.md, Managed policy):
 *
 * - a managed name in `disabled`;
 * - a managed extension's section (`mode: shadow`, or any setting: the admin's are the ones that
 *   apply, so a lower layer cannot loosen a guard through its own config);
 * - a `chain_timeout_ms` shorter than the managed layer's for that hook (with managed extensions
 *   and no managed limit for a hook, any limit is shorter than none);
 * - an `on_load_error` other than the managed layer's (default `block`), when it has extensions:
 *   a managed guard that fails to load refuses tool calls as the admin said;
 * - `enabled`, `project_local`, `no_sandbox` or `on_load_error` where the managed config sets it.
 */
export function withinManagedRules(
  layers: readonly LowerLayer[],
  rules: ManagedRules,
): { layers: LowerLayer[]; diagnostics: Diagnostic[] } {
  const diagnostics: Diagnostic[] = [];
  const ignored = (file: string, what: string, extension?: string) =>
    diagnostics.push({
      code: 'MANAGED_OVERRIDE',
      severity: 'warning',
      ...(extension === undefined ? {} : { extension }),
      file,
      message: `${what} in ${file} is ignored: ${rules.file} manages it`,
    });
  const managing = rules.names.size > 0;
  const out = layers.map(({ config, file }) => {
    const section = config.extensions;
    if (section === undefined) return { config, file };
    const kept: ExtensionsSection = {};
    for (const [key, value] of Object.entries(section)) {
      if (key === 'disabled') {
        const names = section.disabled ?? [];
        for (const name of names.filter((n) => rules.names.has(n))) {
          ignored(file, `extensions.disabled: [${name}]`, name);
        }
        kept.disabled = names.filter((n) => !rules.names.has(n));
      } else if (key === 'chain_timeout_ms') {
        kept.chain_timeout_ms = deadlines(section.chain_timeout_ms ?? {}, rules, managing, (hook) =>
          ignored(file, `extensions.chain_timeout_ms.${hook}`),
        );
      } else if (OWN_SCALARS.includes(key) && rules.section[key] !== undefined) {
        if (value !== rules.section[key]) ignored(file, `extensions.${key}: ${String(value)}`);
      } else if (key === 'on_load_error' && managing) {
        if (value !== (rules.section.on_load_error ?? 'block')) {
          ignored(file, `extensions.on_load_error: ${String(value)}`);
        }
      } else if (rules.names.has(key)) {
        ignored(file, sectionAttempt(key, value), key);
      } else {
        kept[key] = value;
      }
    }
    return { config: { ...config, extensions: kept }, file };
  });
  return { layers: out, diagnostics };
}

/** Settings the managed config may fix for every layer: set there, a lower layer's is ignored. */
const OWN_SCALARS: readonly string[] = ['enabled', 'project_local', 'no_sandbox', 'on_load_error'];

/** A lower layer's chain limits, without those shorter than the managed layer's. */
function deadlines(
  lower: NonNullable<ExtensionsSection['chain_timeout_ms']>,
  rules: ManagedRules,
  managing: boolean,
  ignored: (hook: string) => void,
): NonNullable<ExtensionsSection['chain_timeout_ms']> {
  const kept: NonNullable<ExtensionsSection['chain_timeout_ms']> = {};
  for (const [hook, ms] of Object.entries(lower) as Array<[keyof typeof lower, number]>) {
    const floor = rules.section.chain_timeout_ms?.[hook];
    const shorter = floor === undefined ? managing : ms < floor;
    if (shorter) ignored(hook);
    else kept[hook] = ms;
  }
  return kept;
}

/** How a message names a lower layer's section for a managed extension. */
function sectionAttempt(name: string, value: unknown): string {
  if (value !== null && typeof value === 'object' && Object.hasOwn(value, MODE_KEY)) {
    const mode = (value as Record<string, unknown>)[MODE_KEY];
    return `extensions.${name}.${MODE_KEY}: ${String(mode)}`;
  }
  return `extensions.${name}`;
}
