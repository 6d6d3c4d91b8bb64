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
 * hook stands down when Cursor runs it and the user's own Cursor hermes hook (`~/.cursor/
 * hooks.json`) is installed for `preToolUse`; without one it judges the call, as the only hermes
 * hook Cursor runs. Read by Claude Code's `readEvent` (agents/claude-code.ts).
 *
 * Only what a project cannot forge decides it. Cursor is known by the event's own
 * `cursor_version`, which Claude Code never sends — not by `$CURSOR_VERSION`, which a project's
 * `.claude/settings.json` can set for Claude Code's hooks (its `env`). And only the user-wide
 * Cursor hook counts: a project's `.cursor/hooks.json` is the project's to write, and a command
 * there that looks like hermes' would otherwise switch the user's Claude Code hook off. Where
 * Cursor runs the hook without naming itself, or with only a project's Cursor hook, both judge:
 * twice the state, never no check.
 */
export function leftToCursor(event: HookEvent): boolean {
  if (typeof event.cursor_version !== 'string') return false;
  return inspectInstalledHooks(cursor).some(
    (hook) =>
      hook.scope === 'user' && hook.events.includes('preToolUse') && hook.missing.length === 0,
  );
}
