import { hermesCommand } from '../../command-name.js';
import type { CommandHookAgent } from './agents.js';
import { turnIdOf } from './observed.js';
import type { Notice, StoredTurn, TurnStore, UncheckedCall } from './turn-store.js';

type HookEvent = Record<string, unknown>;

/** How many unchecked calls a turn keeps (the notice then says "at least" that many). */
export const UNCHECKED_KEPT = 100;

/** The told-once key of the notice: told once per session, whatever the count and the tools. */
const NOTICE_KEY = 'hermes: tool calls ran without a decision';

/**
 * The tool calls an event after tools reports, by id: `PostToolUse` and `PostToolUseFailure` one,
 * Claude Code's `PostToolBatch` every call in its `tool_calls`. A call without an id is left out:
 * it cannot be matched with a decision; so is one the agent did not run (`tool_status:
 * "blocked"`, the Hermes agent's refusals of its own, some before any `PreToolUse`).
 */
export function reportedCalls(event: HookEvent): UncheckedCall[] {
  const items = event.hook_event_name === 'PostToolBatch' ? event.tool_calls : [event];
  if (!Array.isArray(items)) return [];
  return items.flatMap((item: unknown) => {
    if (item === null || typeof item !== 'object') return [];
    const { tool_use_id: id, tool_name: tool, tool_status: status } = item as HookEvent;
    if (typeof id !== 'string' || id === '' || status === 'blocked') return [];
    return [{ id, tool: typeof tool === 'string' && tool !== '' ? tool : 'unnamed' }];
  });
}

/**
 * Records, in the turn, the reported calls that were never decided (turn-store.ts
 * `StoredTurn.decisions`): the agent ran them without the hook's `PreToolUse` answer. Cheap — the
 * turn file only, written only when there is something new — and never a failure of the event: a
 * store that cannot be used refuses the next tool call anyway, and this is only a check.
 */
export async function noteReportedCalls(
  store: TurnStore,
  event: HookEvent,
  sessionId: string,
): Promise<void> {
  const calls = reportedCalls(event);
  if (calls.length === 0) return;
  try {
    await store.update(sessionId, { turnId: turnIdOf(event) }, async (turn) => {
      const unchecked = turn.unchecked ?? [];
      const known = new Set([...(turn.decisions ?? []), ...unchecked].map((call) => call.id));
      const fresh = calls.filter((call) => !known.has(call.id));
      if (fresh.length === 0 || unchecked.length >= UNCHECKED_KEPT) {
        return { result: undefined, unchanged: true as const };
      }
      const kept = [...unchecked, ...fresh].slice(0, UNCHECKED_KEPT);
      return { result: undefined, state: turn.state, unchecked: kept };
    });
  } catch {
    // Only a check (above): the event is answered as if it had not been made.
  }
}

/**
 * What to tell the user of an ended turn's unchecked calls, if any: how many, of which tools, and
 * what to check. One notice per session (its key), not one per turn: its causes — a hook entry
 * whose matcher leaves tools out, a hook command that cannot start — stay until they are fixed.
 */
export function uncheckedNotice(
  agent: CommandHookAgent,
  turn: StoredTurn | undefined,
): Exclude<Notice, string> | undefined {
  const calls = turn?.unchecked ?? [];
  if (calls.length === 0) return undefined;
  const tools = [...new Set(calls.map((call) => call.tool))];
  const shown = tools.length > 10 ? [...tools.slice(0, 10), '…'] : tools;
  const one = calls.length === 1;
  const count = calls.length >= UNCHECKED_KEPT ? `At least ${calls.length}` : `${calls.length}`;
  const [them, their] = one ? ['it', 'its'] : ['them', 'their'];
  const text = [
    `Hermes: ${count} tool call${one ? '' : 's'} of this turn ran without a decision of the`,
    `hermes hook (${shown.join(', ')}): ${agent.title} reported ${their} outcome, but the hook's`,
    `PreToolUse never answered for ${them}, so no extension checked ${them}. Check with`,
    `\`${hermesCommand()} extensions doctor\` that the hook starts, and that its PreToolUse entry covers every`,
    `tool (\`${hermesCommand()} hook install ${agent.name}\` puts it there). Told once per session.`,
  ].join(' ');
  return { key: NOTICE_KEY, text };
}

/** The notice of an ended turn's unchecked calls, if the session was not told yet. */
export async function tellUnchecked(
  store: TurnStore,
  agent: CommandHookAgent,
  sessionId: string,
  ended: StoredTurn | undefined,
): Promise<string[]> {
  const notice = uncheckedNotice(agent, ended);
  if (notice === undefined) return [];
  // A record of what was told that cannot be used: telling twice is better than not at all.
  return store.tellOnce(sessionId, [notice]).catch(() => [notice.text]);
}
