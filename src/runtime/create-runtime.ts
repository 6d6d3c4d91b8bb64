import { resolve } from 'node:path';
import type { ChainTimeouts } from '../chain/chain-deadline.js';
import { parseWith } from '../config/errors.js';
import { chainTimeoutsSchema, type HermesConfig, hermesConfigSchema } from '../config/schema.js';
import { loadingKeyHint } from '../config/unknown-keys.js';
import type { ExtensionDefinition } from '../extensions/define.js';
import { findDefinitionProblem } from '../extensions/define.js';
import { byName } from '../extensions/order.js';
import type { ExtensionCandidate } from '../extensions/types.js';
import { type Logger, stderrLogger } from '../log/logger.js';
import { assembleRuntime } from './assemble.js';
import type { Runtime } from './runtime.js';

export interface CreateRuntimeOptions {
  /** In-memory extensions. Their order does not matter: priority ties go by extension name. */
  // biome-ignore lint/suspicious/noExplicitAny: each extension has its own config type
  extensions: ReadonlyArray<ExtensionDefinition<any>>;
  /** The config-file shape: `{ extensions: { NAME: {...}, disabled: [...] } }`. */
  config?: HermesConfig;
  /** The project root extensions see as `hermes.projectRoot`. Default: `process.cwd()`. */
  cwd?: string;
  /** Where the runtime and `hermes.log` write. Default: stderr. */
  logger?: Logger;
  /** How long each extension's `setup` may take (they run at the same time). Default 10 000 ms. */
  setupTimeoutMs?: number;
  /**
   * How long each hook's whole chain may take, in ms, e.g. `{ intercept_tool_call: 3000 }`
   * (docs/chain-semantics.md, A deadline for the whole chain). Wins over the config's
   * `extensions.chain_timeout_ms`. None by default.
   */
  chainTimeoutMs?: ChainTimeouts;
}

/**
 * A runtime over extensions held in memory (tests, bundled hosts). A definition that is not a
 * valid extension, a config that fails its schema or a setup that throws leaves that extension
 * in `error` with a diagnostic; only a config that is itself malformed rejects.
 */
export async function createRuntime(options: CreateRuntimeOptions): Promise<Runtime> {
  if (!options || !Array.isArray(options.extensions)) {
    throw new TypeError('createRuntime({ extensions }): extensions must be an array');
  }
  const config = parseWith(
    hermesConfigSchema,
    options.config ?? {},
    'createRuntime({ config })',
    [],
    loadingKeyHint,
  );
  const candidates = options.extensions
    .map((definition, index): ExtensionCandidate => {
      const problem = findDefinitionProblem(definition);
      const name = problem ? `invalid-extension-${index}` : definition.name;
      return problem
        ? {
            name,
            source: 'inline',
            loadError: { code: 'NOT_AN_EXTENSION', message: `extensions[${index}]: ${problem}` },
            loadMs: 0,
          }
        : { name, source: 'inline', definition, loadMs: 0 };
    })
    // Load order (`extensions/order.ts`). Stable: same-named definitions keep array order, so
    // the last one shadows the others.
    .sort(byName);
  return assembleRuntime({
    candidates,
    section: config.extensions ?? {},
    configSources: [{ section: config.extensions ?? {}, where: 'createRuntime({ config })' }],
    projectRoot: resolve(options.cwd ?? process.cwd()),
    logger: options.logger ?? stderrLogger,
    ...(options.setupTimeoutMs === undefined ? {} : { setupTimeoutMs: options.setupTimeoutMs }),
    ...(options.chainTimeoutMs === undefined
      ? {}
      : {
          chainTimeoutMs: parseWith(
            chainTimeoutsSchema,
            options.chainTimeoutMs,
            'createRuntime({ chainTimeoutMs })',
          ),
        }),
  });
}
