import {
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { basename, dirname, join, sep } from 'node:path';
import { parseDocument } from 'yaml';
import { hermesHome } from '../../config/locations.js';
import { removeYamlKey } from '../../config/yaml-list.js';
import { removeEmptyFolders } from '../../fs/empty-folders.js';
import { rewriteUserFile } from '../../fs/user-file.js';
import { PACKAGE_ROOT, packageVersion } from '../../package-root.js';
import { editPluginList, type PluginList } from './plugin-config.js';

/** The plugin's name: its folder under `plugins/`, its `plugin.yaml` name, its config entry. */
export const HERMES_PLUGIN_NAME = 'hermes-extensions';

/** The plugin as this package ships it. */
export const PLUGIN_SOURCE = join(PACKAGE_ROOT, 'clients', 'hermes-agent-plugin');

/** Written beside the copied plugin: where its package is, and that this package wrote it. */
const RECORD = 'install.json';
/** What a plugin folder may hold that is not the plugin's code (registration.ts: the record Hermes' load wrote). */
const NOT_COPIED = ['__pycache__', RECORD, 'registered.json'];

export interface HermesPluginOptions {
  /**
   * The Hermes agent's home: where its `plugins/` and `config.yaml` are. Default: the agent's
   * own rule, `$HERMES_HOME`, else `~/.hermes` (`hermesAgentHome`).
   */
  hermesHome?: string;
}

export interface HermesPluginInstall {
  /** The plugin's folder, `<home>/plugins/hermes-extensions`. */
  pluginDir: string;
  configFile: string;
  /** Whether `plugins.enabled` had to be changed (false: it was enabled already). */
  enabled: boolean;
  /** Whether the name was taken out of `plugins.disabled`, where it would have won. */
  undisabled: boolean;
}

export interface HermesPluginUninstall {
  pluginDir: string;
  configFile: string;
  /** Whether there was a plugin folder to remove. */
  removed: boolean;
  /** Whether `plugins.enabled` named it. */
  disabled: boolean;
}

/**
 * The Hermes agent's home. It follows the same variable and default as this package's own home
 * (`hermesHome` in src/config/locations.ts) on purpose: the spec this package implements puts
 * its `extensions:` section in the agent's config.yaml, so by default the two are one folder —
 * the agent reads `plugins/` and `plugins.enabled` there, this package `extensions/` and
 * `extensions:`. They are told apart by name, not by place: code that means the agent's
 * (the plugin's folder, `plugins.enabled`) asks this function, code that means ours asks
 * `hermesHome`; the plugin's bridge, started by the agent, inherits its `HERMES_HOME`, so both
 * keep meaning the same folder inside Hermes.
 */
export function hermesAgentHome(home?: string): string {
  return hermesHome(home);
}

/**
 * Installs the plugin into the Hermes agent: copies `clients/hermes-agent-plugin/` to
 * `<home>/plugins/hermes-extensions/` (replacing an earlier copy of this package's, so an upgrade
 * is an install), records this package's folder and this Node there (install.json: a Hermes
 * started outside a shell may not have `node` on its PATH), and adds the plugin to
 * `plugins.enabled` of `<home>/config.yaml`, taking it out of `plugins.disabled` (which would
 * win), keeping the rest of the file. A folder of that name that this package did not write is
 * left alone, with an error saying so.
 */
export function installHermesPlugin(options: HermesPluginOptions = {}): HermesPluginInstall {
  const home = hermesAgentHome(options.hermesHome);
  const pluginDir = join(home, 'plugins', HERMES_PLUGIN_NAME);
  refuseForeign(pluginDir);
  const configFile = join(home, 'config.yaml');
  const configCreated = createdByInstall(configFile, readRecord(pluginDir)?.config_created);
  rmSync(pluginDir, { recursive: true, force: true });
  mkdirSync(pluginDir, { recursive: true });
  cpSync(PLUGIN_SOURCE, pluginDir, {
    recursive: true,
    filter: (source) => !NOT_COPIED.includes(basename(source)),
  });
  const record = {
    installed_by: HERMES_PLUGIN_NAME,
    version: packageVersion(),
    package_root: PACKAGE_ROOT,
    node: process.execPath,
    ...(configCreated === undefined ? {} : { config_created: configCreated }),
  };
  writeFileSync(join(pluginDir, RECORD), `${JSON.stringify(record, null, 2)}\n`);
  const enabled = editConfig(configFile, 'enabled', true);
  const undisabled = editConfig(configFile, 'disabled', false);
  return { pluginDir, configFile, enabled, undisabled };
}

/**
 * Removes the plugin: its folder (only one this package wrote) and its `plugins.enabled` entry;
 * everything else in config.yaml stays.
 */
export function uninstallHermesPlugin(options: HermesPluginOptions = {}): HermesPluginUninstall {
  const home = hermesAgentHome(options.hermesHome);
  const pluginDir = join(home, 'plugins', HERMES_PLUGIN_NAME);
  refuseForeign(pluginDir);
  const created = readRecord(pluginDir)?.config_created;
  const removed = existsSync(pluginDir);
  rmSync(pluginDir, { recursive: true, force: true });
  // Hermes makes `plugins/` when it first needs it; one left empty here was made for ours.
  removeEmptyFolders(dirname(pluginDir), home);
  const configFile = join(home, 'config.yaml');
  const disabled = existsSync(configFile) && editConfig(configFile, 'enabled', false);
  if (disabled && created !== undefined) undoCreated(configFile, created);
  return { pluginDir, configFile, removed, disabled };
}

/**
 * What of config.yaml install made for the plugin's `plugins.enabled` entry, the outermost: the
 * file, the `plugins:` section, or the `enabled:` list (none: the list was there). Kept in the
 * install record, so that uninstall takes out what install made and nothing the user had: the
 * file's text alone cannot tell a `plugins: {enabled: []}` the user wrote from one install left.
 * Installed again over itself (an upgrade), the name is in the list already: the record before
 * says what the first install made.
 */
function createdByInstall(
  file: string,
  before: ConfigCreated | undefined,
): ConfigCreated | undefined {
  if (!existsSync(file)) return 'file';
  const document = parseDocument(readFileSync(file, 'utf8'));
  // One that does not parse is refused by the edit that follows, naming what to fix.
  if (document.errors.length > 0) return undefined;
  const config = document.toJS() as { plugins?: { enabled?: unknown } | null } | null;
  if (!document.has('plugins')) return 'plugins';
  if (config?.plugins == null) return undefined;
  const list = config.plugins.enabled;
  if (list == null) return 'enabled';
  return Array.isArray(list) && list.includes(HERMES_PLUGIN_NAME) ? before : undefined;
}

/**
 * Takes out what install made, once its entry is gone, when nothing else is in it: an empty
 * `enabled:` list, a `plugins:` section left empty, a file left empty. What the user or Hermes
 * wrote there since stays, with the file.
 */
function undoCreated(file: string, created: ConfigCreated): void {
  const before = readFileSync(file, 'utf8');
  const plugins = (parseDocument(before).toJS() as { plugins?: Record<string, unknown> } | null)
    ?.plugins;
  const list = plugins?.enabled;
  if (!Array.isArray(list) || list.length > 0) return;
  const alone = Object.keys(plugins ?? {}).length === 1;
  const text = removeYamlKey(
    before,
    created !== 'enabled' && alone ? ['plugins'] : ['plugins', 'enabled'],
  );
  const left = parseDocument(text);
  if (created === 'file' && text.trim() === '' && !left.commentBefore && !left.comment)
    rmSync(file, { force: true });
  else if (text !== before) rewriteUserFile(file, text);
}

type ConfigCreated = 'file' | 'plugins' | 'enabled';

function readRecord(pluginDir: string): { config_created?: ConfigCreated } | undefined {
  try {
    const record = JSON.parse(readFileSync(join(pluginDir, RECORD), 'utf8')) as {
      installed_by?: unknown;
      config_created?: unknown;
    };
    if (record.installed_by !== HERMES_PLUGIN_NAME) return undefined;
    const created = record.config_created;
    return created === 'file' || created === 'plugins' || created === 'enabled'
      ? { config_created: created }
      : {};
  } catch {
    return undefined;
  }
}

/** Whether `pluginDir` holds a plugin this package installed (its install.json says so). */
export function isOurPlugin(pluginDir: string): boolean {
  try {
    const record = JSON.parse(readFileSync(join(pluginDir, RECORD), 'utf8')) as {
      installed_by?: unknown;
    };
    return record.installed_by === HERMES_PLUGIN_NAME;
  } catch {
    return false;
  }
}

/**
 * Whether `pluginDir` holds, byte for byte, the plugin this copy ships (what install copies; not
 * install.json nor what Hermes writes beside it): a plugin another copy of the same version
 * installed runs the same code.
 */
export function isShippedPlugin(pluginDir: string): boolean {
  try {
    const shipped = pluginFiles(PLUGIN_SOURCE);
    const there = pluginFiles(pluginDir);
    return (
      shipped.length === there.length &&
      shipped.every(
        (file, at) =>
          there[at] === file &&
          readFileSync(join(PLUGIN_SOURCE, file)).equals(readFileSync(join(pluginDir, file))),
      )
    );
  } catch {
    return false;
  }
}

/** The plugin's files under `dir`, relative and sorted, without what install does not copy. */
function pluginFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name).slice(dir.length + 1))
    .filter((file) => !file.split(sep).some((part) => NOT_COPIED.includes(part)))
    .sort();
}

function refuseForeign(pluginDir: string): void {
  let stat: ReturnType<typeof lstatSync>;
  try {
    stat = lstatSync(pluginDir);
  } catch {
    return;
  }
  if (stat.isDirectory() && isOurPlugin(pluginDir)) return;
  throw new Error(
    `${pluginDir} is there and was not installed by hermes-extensions (no ${RECORD} of ours); ` +
      'move it away (or remove it) and install again',
  );
}

function editConfig(file: string, list: PluginList, add: boolean): boolean {
  const text = existsSync(file) ? readFileSync(file, 'utf8') : '';
  const edit = editPluginList(text, file, list, HERMES_PLUGIN_NAME, add);
  if (edit.changed) rewriteUserFile(file, edit.text);
  return edit.changed;
}
