import type { ModuleLoader } from '../extensions/loading/import-module.js';
import { ConfigError, parseWith } from './errors.js';
import { type HermesConfig, hermesConfigSchema } from './schema.js';

/**
 * A config file, parsed and validated. cosmiconfig reads every format (YAML, JSON,
 * `package.json#hermes`, code); code goes through the framework's module loader, so
 * `hermes.config.ts` works on Node 20 and imports the framework without installing it. The caller
 * finds the file and decides first whether its code may run. Rejects with a ConfigError naming
 * the file (and the key path, when the content is what is wrong).
 */
export async function loadConfigFile(file: string, loader: ModuleLoader): Promise<HermesConfig> {
  const loadCode = async (path: string) => {
    const module = await loader.import(path);
    return module.default ?? module;
  };
  // Imported here, not at the top: a run without config files never pays for it.
  const { cosmiconfig } = await import('cosmiconfig');
  const explorer = cosmiconfig('hermes', {
    searchStrategy: 'none',
    cache: false,
    loaders: { '.ts': loadCode, '.mts': loadCode, '.js': loadCode, '.mjs': loadCode },
  });
  let content: unknown;
  try {
    content = (await explorer.load(file))?.config;
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new ConfigError(`cannot read config file ${file}: ${reason}`, file, { cause: error });
  }
  try {
    return parseWith(hermesConfigSchema, content ?? {}, file);
  } catch (error) {
    throw new ConfigError((error as Error).message, file);
  }
}
