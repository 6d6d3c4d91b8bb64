import { existsSync } from 'node:fs';
import type { CommandHookAgent } from '../agent.js';
import { byInstallOrder, isHermesHookCommand } from '../hook-command.js';
import { type HookEntry, hooksOf, readSettingsFile, writeSettingsFile } from './json-file.js';

/**
 * Removes the agent's hermes hooks (every command `isHermesHookCommand` knows, under any event)
 * from its settings `file`, and nothing else: an entry, an event's list or the `hooks` object
 * that removing them left empty goes too (install made it), while one that was empty already
 * stays; the rest of the file keeps its layout, and a file left with no setting at all is
 * removed. Returns the events it removed a hook from (none: the file was not touched). A file
 * that is not a JSON object is an error, not overwritten. `events` limits it to those events.
 */
export function uninstallCommandHooks(
  agent: CommandHookAgent,
  file: string,
  events?: readonly string[],
): { removed: string[] } {
  if (!existsSync(file)) return { removed: [] };
  const read = readSettingsFile(file);
  const hooks = hooksOf(read.settings);
  if (hooks === undefined) return { removed: [] };
  const removed: string[] = [];
  for (const [event, entries] of Object.entries(hooks)) {
    if (!Array.isArray(entries) || (events !== undefined && !events.includes(event))) continue;
    let changed = false;
    const kept = (entries as HookEntry[]).filter((entry) => {
      if (!Array.isArray(entry?.hooks)) return true;
      const others = entry.hooks.filter(
        (hook) => typeof hook?.command !== 'string' || !isHermesHookCommand(hook.command, agent),
      );
      if (others.length === entry.hooks.length) return true;
      changed = true;
      entry.hooks = others;
      return others.length > 0;
    });
    if (!changed) continue;
    removed.push(event);
    if (kept.length > 0) hooks[event] = kept;
    else delete hooks[event];
  }
  if (removed.length === 0) return { removed };
  if (Object.keys(hooks).length === 0) delete read.settings.hooks;
  writeSettingsFile(read);
  return { removed: removed.sort(byInstallOrder(agent)) };
}
