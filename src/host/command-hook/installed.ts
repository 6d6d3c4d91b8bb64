import { existsSync, readFileSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import { parse } from 'shell-quote';
import type { CommandHookAgent } from './agents.js';

/** A `hermes hook <agent>` command found in one of the agent's settings files. */
export interface InstalledHook {
  file: string;
  command: string;
  /** The events it is registered for. */
  events: string[];
  /** Absolute paths in the command (the node binary, the bin script) that no longer exist. */
  missing: string[];
}

/** One entry under `hooks.<Event>` in Claude Code's settings and Codex's hooks.json alike. */
export interface HookEntry {
  matcher?: string;
  hooks?: Array<{ type?: string; command?: string; timeout?: number }>;
}

/**
 * Whether a hook command is this package's hook for `agent`: one simple command (no `;`, `&&`,
 * pipes) that ends in `hermes hook <agent>`, where `hermes` may be `hermes-extensions` or a path
 * to either or to `bin/hermes.js` (run by node). Strict, because install rewrites what matches.
 */
export function isHermesHookCommand(command: string, agent: CommandHookAgent): boolean {
  const tokens = parse(command);
  if (tokens.some((token) => typeof token !== 'string')) return false;
  const words = tokens as string[];
  const at = words.length - 2;
  return (
    at >= 1 &&
    words[at] === 'hook' &&
    words[at + 1] === agent.name &&
    /(^|\/)(hermes(\.js)?|hermes-extensions)$/.test(words[at - 1] as string)
  );
}

/**
 * The hermes hooks in the agent's settings, user-wide and in `project` when given: which events
 * they cover and whether the paths they run still exist (a moved package or a removed Node
 * version breaks the command, and both agents treat a failing hook as non-blocking: the
 * extensions would silently stop running there).
 */
export function inspectInstalledHooks(agent: CommandHookAgent, project?: string): InstalledHook[] {
  const files = [agent.settingsFile(undefined), ...(project ? [agent.settingsFile(project)] : [])];
  const found: InstalledHook[] = [];
  for (const file of new Set(files)) {
    const hooks = readHooks(file);
    if (hooks === undefined) continue;
    const byCommand = new Map<string, InstalledHook>();
    for (const [event, entries] of Object.entries(hooks)) {
      if (!Array.isArray(entries)) continue;
      for (const entry of entries as HookEntry[]) {
        for (const hook of entry?.hooks ?? []) {
          const command = hook?.command;
          if (typeof command !== 'string' || !isHermesHookCommand(command, agent)) continue;
          const installed = byCommand.get(command) ?? {
            file,
            command,
            events: [],
            missing: argv(command).filter((word) => isAbsolute(word) && !existsSync(word)),
          };
          if (!installed.events.includes(event)) installed.events.push(event);
          byCommand.set(command, installed);
        }
      }
    }
    found.push(...byCommand.values());
  }
  // In the order the agent runs them, whatever the order in the file.
  const rank = (event: string) => {
    const at = agent.installEvents.indexOf(event);
    return at === -1 ? agent.installEvents.length : at;
  };
  for (const hook of found) hook.events.sort((a, b) => rank(a) - rank(b));
  return found;
}

function readHooks(file: string): Record<string, unknown> | undefined {
  if (!existsSync(file)) return undefined;
  try {
    const settings = JSON.parse(readFileSync(file, 'utf8')) as { hooks?: unknown };
    const hooks = settings?.hooks;
    return hooks && typeof hooks === 'object' && !Array.isArray(hooks)
      ? (hooks as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

function argv(command: string): string[] {
  return parse(command).filter((word): word is string => typeof word === 'string');
}
