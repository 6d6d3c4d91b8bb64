import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../../../package-root.js';

/** The first line of every plugin file install writes: how uninstall and doctor know it. */
export const PLUGIN_MARKER = '// hermes-extensions: OpenCode plugin (hermes hook install opencode)';

/** The line that holds the command the plugin runs, as JSON: doctor reads it back. */
const COMMAND_LINE = 'const HERMES_HOOK_ARGV = ';

/** The one export of plugin.ts, which the installed file must not export: OpenCode would call it. */
const FACTORY = 'export function createHermesPlugin(';

/**
 * The plugin file for OpenCode's plugin folder: the compiled plugin (dist/host/opencode/plugin.js)
 * running `argv` (empty: the project's own `node_modules/.bin/hermes`), whole, so that it needs
 * nothing from this package while OpenCode loads it; a package that moved then fails one hook
 * process, which the plugin answers with a refusal, instead of the plugin itself, which OpenCode
 * would skip.
 */
export function pluginFileText(argv: readonly string[]): string {
  const compiled = join(PACKAGE_ROOT, 'dist', 'host', 'opencode', 'plugin.js');
  let source: string;
  try {
    source = readFileSync(compiled, 'utf8');
  } catch (error) {
    throw new Error(
      `cannot read the OpenCode plugin at ${compiled} (${(error as Error).message}): build hermes-extensions (npm run build) or install it again`,
    );
  }
  if (!source.includes(FACTORY))
    throw new Error(
      `${compiled} is not the OpenCode plugin this version of hermes writes: build it again`,
    );
  const body = source
    .replace(FACTORY, 'function createHermesPlugin(')
    .replace(/^\/\/# sourceMappingURL=.*$/m, '')
    .trimEnd();
  return [
    PLUGIN_MARKER,
    "// It runs hermes for each of OpenCode's hooks and refuses a tool call when hermes cannot answer.",
    '// Written by hermes: `hermes hook uninstall opencode` removes it, `hermes hook install opencode` renews it.',
    `${COMMAND_LINE}${JSON.stringify(argv)};`,
    body,
    'export const HermesExtensions = createHermesPlugin({ argv: HERMES_HOOK_ARGV, pluginUrl: import.meta.url });',
    '',
  ].join('\n');
}

/**
 * The command a plugin file install wrote runs (empty: the project's own hermes); undefined for
 * any other file, which install and uninstall leave alone.
 */
export function pluginFileArgv(text: string): string[] | undefined {
  if (!text.startsWith(PLUGIN_MARKER)) return undefined;
  const line = text.split('\n').find((candidate) => candidate.startsWith(COMMAND_LINE));
  if (line === undefined) return undefined;
  try {
    const argv = JSON.parse(line.slice(COMMAND_LINE.length).replace(/;\s*$/, '')) as unknown;
    return Array.isArray(argv) && argv.every((word) => typeof word === 'string') ? argv : undefined;
  } catch {
    return undefined;
  }
}
