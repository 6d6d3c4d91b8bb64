import { inspectInstalledHooks } from '../installed.js';
import { cursor } from './cursor.js';

type HookEvent = Record<string, unknown>;

/**
 * What a Claude Code hook event becomes when Cursor runs it and Cursor's own hermes hook answers
 * the same event: one the engine does not know, of no session's turn, so it is answered with
 * nothing and changes nothing.
 */
export const LEFT_TO_CURSOR: Readonly<Record<string, unknown>> = {
  hook_event_name: 'LeftToCursorHook',
  session_id: 'left-to-cursor',
};

/**
 * Cursor runs Claude Code's hooks too (`.claude/settings*.json`, `~/.claude/settings.json`, when
 * its third-party hooks are on), every matching hook of every source, a Cursor file's answer
 * winning a conflict (agents/cursor.ts). With both hermes hooks installed, each call would be
 * judged twice — by Claude Code's hook and by Cursor's, twice the handlers' state and observers'
 * events, and under one call id a second decision is a refusal (decisions.ts). So Claude Code's
 * hook stands down when Cursor runs it (the event names Cursor: `cursor_version`, or
 * `$CURSOR_VERSION` in the hook's environment) and Cursor's own hermes hook is installed for
 * `preToolUse`, user-wide or in the event's project; without one it judges the call, as the only
 * hermes hook Cursor runs. Read by Claude Code's `readEvent` (agents/claude-code.ts).
 */
export function leftToCursor(
  event: HookEvent,
  env: Readonly<Record<string, string | undefined>> = process.env,
): boolean {
  if (typeof event.cursor_version !== 'string' && !env.CURSOR_VERSION) return false;
  const roots = Array.isArray(event.workspace_roots) ? event.workspace_roots : [];
  const project = [roots[0], env.CLAUDE_PROJECT_DIR, event.cwd].find(
    (dir): dir is string => typeof dir === 'string' && dir !== '',
  );
  return inspectInstalledHooks(cursor, project).some(
    (hook) => hook.events.includes('preToolUse') && hook.missing.length === 0,
  );
}
