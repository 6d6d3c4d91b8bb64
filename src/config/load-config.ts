import { cosmiconfig } from 'cosmiconfig';
import { importModule } from '../extensions/loading/import-module.js';
import { ConfigError, parseWith } from './errors.js';
import { type HermesConfig, hermesConfigSchema } from './schema.js';

const loadCode = async (file: string) => {
  const module = await importModule(file);
  return module.default ?? module;
};

/**
 * cosmiconfig reads every format (YAML, JSON, `package.json#hermes`, code); code goes through the
 * framework's own loader, so `hermes.config.ts` works on Node 20 and imports the framework
 * without installing it. Files are found by the caller, which decides first whether code may run.
 */
const explorer = cosmiconfig('hermes', {
  searchStrategy: 'none',
  cache: false,
  loaders: { '.ts': loadCode, '.mts': loadCode, '.js': loadCode, '.mjs': loadCode },
});

/**
 * A config file, parsed and validated. Rejects with a ConfigError naming the file (and the key
 * path, when the content is what is wrong).
 */
export async function loadConfigFile(file: string): Promise<HermesConfig> {
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
