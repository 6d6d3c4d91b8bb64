import type { SettingsFormat } from './format.js';
import { installCommandHooks } from './hooks-json-install.js';
import { uninstallCommandHooks } from './hooks-json-uninstall.js';
import { type HookEntry, readHooks } from './json-file.js';

/**
 * Claude Code's `settings.json` and Codex's `hooks.json`: a JSON object whose `hooks.<Event>`
 * lists entries `{ matcher?, hooks: [{ type: "command", command, timeout }] }`.
 */
export const hooksJson: SettingsFormat = {
  hookCommands(file) {
    const hooks = readHooks(file);
    if (hooks === undefined) return undefined;
    const found: Array<{ event: string; command: string }> = [];
    for (const [event, entries] of Object.entries(hooks)) {
      if (!Array.isArray(entries)) continue;
      for (const entry of entries as HookEntry[]) {
        for (const hook of Array.isArray(entry?.hooks) ? entry.hooks : []) {
          if (typeof hook?.command === 'string') found.push({ event, command: hook.command });
        }
      }
    }
    return found;
  },
  install: installCommandHooks,
  uninstall: uninstallCommandHooks,
};
