import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isMap, isSeq, parseDocument } from 'yaml';
import { PACKAGE_ROOT, packageVersion } from '../../package-root.js';
import {
  HERMES_PLUGIN_NAME,
  type HermesPluginOptions,
  hermesAgentHome,
  isOurPlugin,
  isShippedPlugin,
} from './plugin-install.js';
import { readHermesRegistration } from './registration.js';

export interface HermesPluginStatus {
  pluginDir: string;
  /** A plugin folder of this package's is there. */
  installed: boolean;
  /** `plugins.enabled` names it and `plugins.disabled` does not: Hermes loads it. */
  enabled: boolean;
  /** What is wrong, each with what to do; empty when the plugin is installed, current and on. */
  problems: string[];
  /**
   * The folder of the other copy of hermes-extensions that installed the plugin, when it is of
   * this version and the plugin's files are this copy's (sameRelease): Hermes runs that copy,
   * which is as good as this one.
   */
  installedBy?: string;
  /**
   * What the installed plugin registered when Hermes last loaded it (registration.ts), or why
   * that is not known; undefined when the plugin is not installed.
   */
  registration?: ReturnType<typeof readHermesRegistration>;
}

/**
 * Whether the Hermes agent runs this package's plugin, for `doctor`: installed by this package,
 * of this version — by this copy, or by another copy of the same release (sameRelease; a global
 * install and a project's, docs/cli.md "Two copies") — and enabled in config.yaml. An older copy
 * keeps running older plugin code, and a copy of another version starts that version's bridge.
 */
export function hermesPluginStatus(options: HermesPluginOptions = {}): HermesPluginStatus {
  const home = hermesAgentHome(options.hermesHome);
  const pluginDir = join(home, 'plugins', HERMES_PLUGIN_NAME);
  const configFile = join(home, 'config.yaml');
  const problems: string[] = [];
  let installedBy: string | undefined;
  const installed = isOurPlugin(pluginDir);
  if (!installed) {
    problems.push(
      existsSync(pluginDir)
        ? `${pluginDir} is not the plugin of hermes-extensions; move it away, then install the plugin`
        : `the plugin is not installed in ${pluginDir}; install it`,
    );
  } else {
    const record = JSON.parse(readFileSync(join(pluginDir, 'install.json'), 'utf8')) as {
      version?: unknown;
      package_root?: unknown;
    };
    if (record.package_root !== PACKAGE_ROOT || record.version !== packageVersion()) {
      if (sameRelease(record, pluginDir)) installedBy = record.package_root as string;
      else
        problems.push(
          `the plugin in ${pluginDir} is of hermes-extensions ${String(record.version)} at ${String(record.package_root)}, not this one (${packageVersion()} at ${PACKAGE_ROOT}); install it again with the copy Hermes should run`,
        );
    }
  }
  const lists = pluginLists(configFile);
  const enabled =
    lists.enabled.includes(HERMES_PLUGIN_NAME) && !lists.disabled.includes(HERMES_PLUGIN_NAME);
  if (lists.problem !== undefined) problems.push(lists.problem);
  else if (lists.disabled.includes(HERMES_PLUGIN_NAME))
    problems.push(
      `plugins.disabled of ${configFile} names ${HERMES_PLUGIN_NAME}, so Hermes does not load it; install the plugin again, or run: hermes plugins enable ${HERMES_PLUGIN_NAME}`,
    );
  else if (!enabled)
    problems.push(
      `plugins.enabled of ${configFile} does not name ${HERMES_PLUGIN_NAME}, so Hermes does not load it; install the plugin again, or run: hermes plugins enable ${HERMES_PLUGIN_NAME}`,
    );
  return {
    pluginDir,
    installed,
    enabled,
    problems,
    ...(installedBy === undefined ? {} : { installedBy }),
    ...(installed ? { registration: readHermesRegistration(pluginDir) } : {}),
  };
}

/**
 * The plugin was installed by another copy of this very release: its record says this version,
 * that copy is still there at this version (the plugin starts its bridge from it), and the
 * plugin's files are byte for byte the ones this copy ships.
 */
function sameRelease(record: { version?: unknown; package_root?: unknown }, pluginDir: string) {
  if (record.version !== packageVersion() || typeof record.package_root !== 'string') return false;
  try {
    const manifest = JSON.parse(
      readFileSync(join(record.package_root, 'package.json'), 'utf8'),
    ) as { name?: unknown; version?: unknown };
    if (manifest.name !== 'hermes-extensions' || manifest.version !== packageVersion())
      return false;
  } catch {
    return false;
  }
  return isShippedPlugin(pluginDir);
}

function pluginLists(file: string): { enabled: unknown[]; disabled: unknown[]; problem?: string } {
  const none = { enabled: [], disabled: [] };
  if (!existsSync(file)) return none;
  let document: ReturnType<typeof parseDocument>;
  try {
    document = parseDocument(readFileSync(file, 'utf8'));
  } catch (error) {
    return { ...none, problem: `cannot read ${file}: ${(error as Error).message}` };
  }
  if (document.errors[0])
    return { ...none, problem: `${file} is not valid YAML (${document.errors[0].message})` };
  const plugins = document.get('plugins', true);
  if (plugins != null && !isMap(plugins))
    return { ...none, problem: `plugins in ${file} is not a mapping` };
  const list = (key: string) => {
    const node = document.getIn(['plugins', key], true);
    return isSeq(node) ? (node.toJSON() as unknown[]) : [];
  };
  return { enabled: list('enabled'), disabled: list('disabled') };
}
