import { realpathSync } from 'node:fs';
import { basename, extname, relative, sep } from 'node:path';
import { hermesCommand } from '../command-name.js';
import { sha256 } from '../fs/digest.js';
import type { ModuleLoader } from '../modules/import-module.js';
import type { ReadGuard } from '../modules/read-guard.js';
import { ConfigError, parseWith } from './errors.js';
import { type HermesConfig, hermesConfigSchema } from './schema.js';
import { loadingKeyHint } from './unknown-keys.js';

/**
 * A config file, parsed and validated. cosmiconfig reads every format (YAML, JSON,
 * `package.json#hermes`, code); code goes through the framework's module loader, so
 * `hermes.config.ts` works on Node 20 and imports the framework without installing it. The caller
 * finds the file and decides first whether its code may run. Rejects with a ConfigError naming
 * the file (and the key path, when the content is what is wrong).
 */
export async function loadConfigFile(
  file: string,
  loader: ModuleLoader,
  options: { project?: ReadGuard } = {},
): Promise<HermesConfig> {
  const { project } = options;
  const loadCode = async (path: string) => {
    const module = await loader.import(path, project);
    return module.default ?? module;
  };
  // Imported here, not at the top: a run without config files never pays for it.
  const { cosmiconfig, defaultLoaders } = await import('cosmiconfig');
  const code = { '.ts': loadCode, '.mts': loadCode, '.js': loadCode, '.mjs': loadCode };
  const explorer = cosmiconfig('hermes', {
    searchStrategy: 'none',
    cache: false,
    loaders: project
      ? withoutImports(project, {
          ...code,
          '.json': defaultLoaders['.json'],
          '.yaml': defaultLoaders['.yaml'],
          '.yml': defaultLoaders['.yml'],
          noExt: defaultLoaders.noExt,
        })
      : code,
  });
  let content: unknown;
  try {
    content = (await explorer.load(file))?.config;
  } catch (error) {
    throw unreadable(file, error);
  }
  return validated(file, content);
}

/**
 * The project config as it was last trusted, for a project that changed since
 * (src/trust/held-state.ts): a data config parsed from `trusted`, the copy of the bytes trusted
 * (never the file on disk, which may differ or be gone); a code config run from the bundle made
 * of the trust record's files (`project` is that record's guard), or not at all.
 */
export async function loadTrustedConfig(
  file: string,
  trusted: () => string,
  loader: ModuleLoader,
  project: ReadGuard,
): Promise<HermesConfig> {
  let content: unknown;
  try {
    const extension = extname(file);
    if (extension in CODE) {
      const module = await loader.import(file, project);
      content = module.default ?? module;
    } else {
      const { defaultLoaders } = await import('cosmiconfig');
      const parse =
        extension === '.json'
          ? defaultLoaders['.json']
          : extension === '.yaml' || extension === '.yml'
            ? defaultLoaders['.yaml']
            : defaultLoaders.noExt;
      content = ownConfig(file, await parse(file, trusted()));
    }
  } catch (error) {
    throw unreadable(file, error);
  }
  return validated(file, content);
}

function unreadable(file: string, error: unknown): ConfigError {
  const reason = error instanceof Error ? error.message : String(error);
  return new ConfigError(`cannot read config file ${file}: ${reason}`, file, { cause: error });
}

function validated(file: string, content: unknown): HermesConfig {
  try {
    return parseWith(hermesConfigSchema, content ?? {}, file, [], loadingKeyHint);
  } catch (error) {
    throw new ConfigError((error as Error).message, file);
  }
}

type Loader = (path: string, content: string) => unknown;

/**
 * Project config loaders that check the content cosmiconfig read against what was trusted, and
 * refuse `$import`: cosmiconfig follows it after the loader returns (reading, and for code
 * running, the files it names), so a throw here comes before any of that. An import in a project
 * config would reach past the project's trust (any file, any folder), and config is data enough.
 */
function withoutImports(guard: ReadGuard, loaders: Record<string, Loader>): Record<string, Loader> {
  const checked: Record<string, Loader> = {};
  for (const [extension, load] of Object.entries(loaders)) {
    checked[extension] = async (path, content) => {
      if (!(extension in CODE)) checkContent(guard, path, content);
      const loaded = await load(path, content);
      ownConfig(path, loaded);
      return loaded;
    };
  }
  return checked;
}

/** A project config file's own settings (`package.json`: its `hermes` key), without `$import`. */
function ownConfig(path: string, loaded: unknown): unknown {
  const own =
    basename(path) === 'package.json' ? (loaded as { hermes?: unknown } | null)?.hermes : loaded;
  if (own !== null && typeof own === 'object' && Object.hasOwn(own, '$import')) {
    throw new Error(
      `key "$import" is not allowed in project config (it would load files the project's trust does not cover); copy the settings into ${basename(path)} instead`,
    );
  }
  return own;
}

const CODE = { '.ts': 1, '.mts': 1, '.js': 1, '.mjs': 1 };

function checkContent(guard: ReadGuard, path: string, content: string): void {
  if (guard.allowed === undefined) return;
  const rel = relative(realpathSync(guard.root), realpathSync(path)).split(sep).join('/');
  if (guard.allowed.get(rel) !== sha256(Buffer.from(content, 'utf8'))) {
    throw new Error(
      `it changed since the project was trusted; review it and run \`${hermesCommand()} extensions trust\``,
    );
  }
}
