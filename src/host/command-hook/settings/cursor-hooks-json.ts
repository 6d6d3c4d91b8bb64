import { existsSync } from 'node:fs';
import type { CommandHookAgent } from '../agent.js';
import { byInstallOrder, isHermesHookCommand } from '../hook-command.js';
import type { SettingsFormat } from './format.js';
import {
  eventList,
  hooksOf,
  isObject,
  readHooks,
  readSettingsFile,
  type SettingsFile,
  writeSettingsFile,
} from './json-file.js';

/** One entry under `hooks.<event>` in Cursor's hooks.json: the command itself, no nested list. */
interface CursorEntry {
  command?: unknown;
  matcher?: unknown;
  [key: string]: unknown;
}

/**
 * Cursor's `hooks.json`: `{"version": 1, "hooks": {"<event>": [{"command": …, "timeout": …}]}}`
 * (agents/cursor.ts). Install adds one entry per event, keeping every other entry, key and the
 * file's layout (json-file.ts), and writes `version: 1` into a file that has none; a hermes entry
 * under a matcher is given none (a matcher that leaves tools out lets them through); running it
 * twice adds nothing. Uninstall removes this package's entries only. A file that is not a JSON
 * object, or whose `hooks` or `version` is not what Cursor reads, or an event entry of another
 * form (an object, a string: `eventList`), is an error, not overwritten.
 */
export const cursorHooksJson: SettingsFormat = {
  hookCommands(file) {
    const hooks = readHooks(file);
    if (hooks === undefined) return undefined;
    return Object.entries(hooks).flatMap(([event, entries]) =>
      (Array.isArray(entries) ? (entries as CursorEntry[]) : [])
        .filter((entry) => typeof entry?.command === 'string')
        .map((entry) => ({ event, command: entry.command as string })),
    );
  },
  install(agent, { file, command, events }) {
    const read = readCursorFile(file);
    const hooks = (hooksOf(read.settings) ?? {}) as Record<string, unknown>;
    const added: string[] = [];
    const updated: string[] = [];
    for (const event of events) {
      const entries = eventList(file, hooks, event, isCursorEntry, 'a list of { command } entries');
      let ours = 0;
      let changed = false;
      const kept = entries.filter((entry) => {
        if (!isOurs(entry, agent)) return true;
        if (ours++ > 0) {
          changed = true; // one hermes hook per event is enough
          return false;
        }
        if (entry.command !== command || entry.matcher !== undefined) changed = true;
        entry.command = command;
        delete entry.matcher;
        return true;
      });
      if (ours === 0) {
        kept.push({ command, timeout: 30 });
        added.push(event);
      } else if (changed) {
        updated.push(event);
      }
      hooks[event] = kept;
    }
    if (added.length + updated.length > 0) {
      // `version` first, as Cursor writes it, when the file had none.
      if (read.settings.version === undefined) read.settings = { version: 1, ...read.settings };
      read.settings.hooks = hooks;
      writeSettingsFile(read);
    }
    return { added, updated };
  },
  uninstall(agent, file, events) {
    if (!existsSync(file)) return { removed: [] };
    const read = readCursorFile(file);
    const hooks = hooksOf(read.settings);
    if (hooks === undefined) return { removed: [] };
    const removed: string[] = [];
    for (const [event, entries] of Object.entries(hooks)) {
      if (!Array.isArray(entries) || (events !== undefined && !events.includes(event))) continue;
      const kept = (entries as CursorEntry[]).filter((entry) => !isOurs(entry, agent));
      if (kept.length === entries.length) continue;
      removed.push(event);
      if (kept.length > 0) hooks[event] = kept;
      else delete hooks[event];
    }
    if (removed.length === 0) return { removed };
    if (Object.keys(hooks).length === 0) delete read.settings.hooks;
    // A file left with only the version install gave it says nothing: it goes.
    if (Object.keys(read.settings).length === 1 && read.settings.version === 1) read.settings = {};
    writeSettingsFile(read);
    return { removed: removed.sort(byInstallOrder(agent)) };
  },
};

/** An entry Cursor reads: an object, its command a string if it has one. */
function isCursorEntry(entry: unknown): entry is CursorEntry {
  return isObject(entry) && (entry.command === undefined || typeof entry.command === 'string');
}

function isOurs(entry: CursorEntry, agent: CommandHookAgent): boolean {
  return typeof entry?.command === 'string' && isHermesHookCommand(entry.command, agent);
}

/** The file, checked to be one Cursor reads: an object, `hooks` an object, `version` 1. */
function readCursorFile(file: string): SettingsFile {
  const read = readSettingsFile(file);
  if (read.settings.hooks !== undefined && hooksOf(read.settings) === undefined)
    throw new Error(`${file}: "hooks" is not an object; fix or move it first`);
  const version = read.settings.version;
  if (version !== undefined && version !== 1)
    throw new Error(
      `${file}: "version" is ${JSON.stringify(version)}, and this package writes Cursor's version 1 only; fix or move it first`,
    );
  return read;
}
