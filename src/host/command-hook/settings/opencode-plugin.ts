import { existsSync, readFileSync, rmSync } from 'node:fs';
import { rewriteUserFile } from '../../../fs/user-file.js';
import { unwrapHookCommand, wrappedHookCommand } from '../hook-wrapper.js';
import type { SettingsFormat } from './format.js';
import { pluginFileArgv, pluginFileText } from './opencode-plugin-file.js';

/**
 * OpenCode's plugin file: OpenCode has no hook settings, it loads every module in its plugin
 * folders (`~/.config/opencode/plugins/`, a project's `.opencode/plugins/`). The "settings file" is
 * the plugin hermes writes there, which covers every event the agent installs; the command it
 * runs is the `argv` of the hook command install hands it (hook-wrapper.ts), read back as the
 * same command, so doctor checks it as any other agent's. A file of that name that hermes did not
 * write is an error, never overwritten or removed.
 */
export const opencodePlugin: SettingsFormat = {
  hookCommands(file) {
    const argv = readArgv(file);
    if (argv === undefined) return undefined;
    const command = wrappedHookCommand('opencode', argv);
    return ['UserPromptSubmit', 'PreToolUse', 'PostToolUse', 'Stop'].map((event) => ({
      event,
      command,
    }));
  },
  install(agent, { file, command, events }) {
    const unwrapped = unwrapHookCommand(command);
    if (unwrapped === undefined || unwrapped.agent !== agent.name)
      throw new Error(`cannot write the OpenCode plugin for the hook command ${command}`);
    const text = pluginFileText(unwrapped.argv);
    const before = existsSync(file) ? readFileSync(file, 'utf8') : undefined;
    if (before !== undefined && pluginFileArgv(before) === undefined)
      throw new Error(`${file} was not written by hermes; move it, then install again`);
    if (before === text) return { added: [], updated: [] };
    // Whole: OpenCode starting at that moment would load half a plugin, or none.
    rewriteUserFile(file, text);
    return before === undefined
      ? { added: [...events], updated: [] }
      : { added: [], updated: [...events] };
  },
  uninstall(agent, file) {
    const argv = readArgv(file);
    if (argv === undefined) {
      if (existsSync(file))
        throw new Error(`${file} was not written by hermes; it is left as it is`);
      return { removed: [] };
    }
    rmSync(file, { force: true });
    return { removed: [...agent.installEvents] };
  },
};

function readArgv(file: string): string[] | undefined {
  try {
    return pluginFileArgv(readFileSync(file, 'utf8'));
  } catch {
    return undefined;
  }
}
