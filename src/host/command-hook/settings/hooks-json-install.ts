import type { CommandHookAgent } from '../agent.js';
import { isHermesHookCommand } from '../hook-command.js';
import {
  eventList,
  type HookEntry,
  hooksOf,
  isObject,
  readSettingsFile,
  writeSettingsFile,
} from './json-file.js';

/** What both agents read under `hooks.<Event>`, as install's refusal names it. */
const EXPECTED = 'a list of { matcher, hooks: [...] } entries';

/**
 * Adds `command` as a command hook to the agent's settings `file` — Claude Code's
 * `settings.json` (or `settings.local.json`), Codex's `hooks.json`, user-wide or the project's;
 * both keep hooks under `hooks.<Event>` — keeping every setting and hook already there and the
 * file's layout; running it twice adds nothing twice. A hermes hook already there with another
 * command line (the package moved, Node was upgraded, a user-wide command became a project one)
 * gets this one instead: a stale path would fail, and both agents let a failing hook through.
 * Returns the events it added or updated. `PreToolUse` is registered for every tool, MCP tools
 * included, with the matcher that means so to this agent; a hermes hook found under a narrower
 * matcher is moved. A file that is not a JSON object, or an event entry of another form than
 * this (an object, a string), is an error, not overwritten (`eventList`).
 */
export function installCommandHooks(
  agent: CommandHookAgent,
  options: {
    file: string;
    command: string;
    commandFor?: (event: string) => string;
    events?: readonly string[];
  },
): { added: string[]; updated: string[] } {
  const read = readSettingsFile(options.file);
  if (read.settings.hooks !== undefined && hooksOf(read.settings) === undefined)
    throw new Error(`${options.file}: "hooks" is not an object; fix or move it first`);
  const hooks = hooksOf(read.settings) ?? {};
  const added: string[] = [];
  const updated: string[] = [];
  for (const event of options.events ?? agent.installEvents) {
    const command = options.commandFor?.(event) ?? options.command;
    const entries = eventList(options.file, hooks, event, isHookEntry, EXPECTED);
    let ours = 0;
    let changed = false;
    // Only an entry this emptied goes: one the user left empty is the user's.
    const emptied = new Set<HookEntry>();
    for (const entry of entries) {
      if (entry.hooks === undefined) continue;
      // Under a matcher that leaves tools out, the guard does not see them: moved to one that does not.
      const narrow = event === 'PreToolUse' && !agent.matchesAllTools(entry.matcher);
      entry.hooks = entry.hooks.filter((hook) => {
        if (typeof hook?.command !== 'string' || !isHermesHookCommand(hook.command, agent))
          return true;
        if (narrow) {
          changed = true;
          emptied.add(entry);
          return false;
        }
        if (ours++ > 0) {
          changed = true; // one hermes hook per event is enough
          emptied.add(entry);
          return false;
        }
        changed ||= hook.command !== command;
        hook.command = command;
        return true;
      });
    }
    const kept = entries.filter((entry) => !emptied.has(entry) || (entry.hooks?.length ?? 0) > 0);
    if (ours === 0) {
      const matcher = event === 'PreToolUse' ? agent.matchAllTools : undefined;
      kept.push({
        ...(matcher === undefined ? {} : { matcher }),
        hooks: [{ type: 'command', command, timeout: 30 }],
      });
      (changed ? updated : added).push(event);
    } else if (changed) {
      updated.push(event);
    }
    hooks[event] = kept;
  }
  // Nothing to do leaves the file as the user wrote it, byte for byte.
  if (added.length + updated.length > 0) {
    read.settings.hooks = hooks;
    writeSettingsFile(read);
  }
  return { added, updated };
}

/** An entry both agents read: an object, its matcher a string if any, its hooks a list of objects. */
function isHookEntry(entry: unknown): entry is HookEntry {
  return (
    isObject(entry) &&
    (entry.matcher === undefined || typeof entry.matcher === 'string') &&
    Array.isArray(entry.hooks) &&
    entry.hooks.every(isObject)
  );
}
