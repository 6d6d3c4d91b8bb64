import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { CommandHookAgent } from './agents.js';

interface HookEntry {
  matcher?: string;
  hooks: Array<{ type: string; command: string; timeout?: number }>;
}

/**
 * Adds `command` as a command hook to the agent's settings — Claude Code's `settings.json`,
 * Codex's `hooks.json`, user-wide or the project's; both keep hooks under `hooks.<Event>` —
 * keeping every setting and hook already there; running it twice adds nothing twice. Returns the
 * file and the events it added. A file that is not a JSON object is an error, not overwritten.
 */
export function installCommandHooks(
  agent: CommandHookAgent,
  options: { project?: string; command: string },
): { file: string; added: string[] } {
  const file = agent.settingsFile(options.project);
  let settings: Record<string, unknown> = {};
  if (existsSync(file)) {
    const text = readFileSync(file, 'utf8');
    try {
      settings = text.trim() === '' ? {} : JSON.parse(text);
    } catch (error) {
      throw new Error(
        `${file} is not valid JSON (${(error as Error).message}); fix or move it first`,
      );
    }
    if (settings === null || typeof settings !== 'object' || Array.isArray(settings))
      throw new Error(`${file} does not hold a JSON object; fix or move it first`);
  }
  const hooks = (settings.hooks ?? {}) as Record<string, HookEntry[]>;
  const added: string[] = [];
  for (const event of agent.installEvents) {
    const entries = Array.isArray(hooks[event]) ? hooks[event] : [];
    if (entries.some((entry) => entry.hooks?.some((hook) => hook.command === options.command)))
      continue;
    entries.push({
      ...(event === 'PreToolUse' ? { matcher: '*' } : {}),
      hooks: [{ type: 'command', command: options.command, timeout: 30 }],
    });
    hooks[event] = entries;
    added.push(event);
  }
  settings.hooks = hooks;
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(settings, null, 2)}\n`);
  return { file, added };
}
