import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';

const EVENTS = ['UserPromptSubmit', 'PreToolUse', 'Stop', 'SessionEnd'] as const;

interface HookEntry {
  matcher?: string;
  hooks: Array<{ type: string; command: string; timeout?: number }>;
}

/**
 * Adds `hermes hook claude-code` to Claude Code's settings (`~/.claude/settings.json`, or the
 * project's `.claude/settings.json`), keeping every setting and hook already there; running it
 * twice adds nothing twice. Returns the file and the events it added.
 */
export function installClaudeCodeHooks(options: { project?: string; command: string }): {
  file: string;
  added: string[];
} {
  const file = options.project
    ? join(options.project, '.claude', 'settings.json')
    : join(homedir(), '.claude', 'settings.json');
  const settings = (existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : {}) as Record<
    string,
    unknown
  >;
  const hooks = (settings.hooks ?? {}) as Record<string, HookEntry[]>;
  const added: string[] = [];
  for (const event of EVENTS) {
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
