import { type BudgetScope, checkScope, LastingCount, lastingKey, scopeWords } from './lasting.js';
import {
  authorsText,
  type BudgetOwner,
  budgetSlot,
  checkMax,
  describe,
  readCount,
} from './slot.js';
import { type CountedTools, toolFilter } from './tools.js';

/** What a budget's `message` function is told when a call goes past the budget. */
export interface ToolBudgetExceeded {
  /** The call's tool. */
  readonly toolName: string;
  readonly max: number;
  /** The budget's name (`tool-calls-1` when none was given). */
  readonly budget: string;
}

export interface ToolCallBudgetOptions {
  /** Calls of the counted tools each turn (session, window) may make; 0 refuses every one. */
  max: number;
  /**
   * How far the count reaches: `'turn'` (the default, kept in the turn's state), `'session'`
   * (every turn of the session) or `'window'` (every call of the user in the last `window`,
   * whatever the session), the last two kept in `$HERMES_HOME/limits/` (lasting.ts).
   */
  scope?: BudgetScope;
  /** With `scope: 'window'`: its length, such as `'10m'` (s, m, h, d or w). */
  window?: string;
  /** Which calls count: names, RegExps, a list of them, or a predicate. Default: every tool. */
  tools?: CountedTools;
  /**
   * What a call past the budget gets: refused (`'block'`, the default), or a person asked (`'ask'`).
   * Not `then`: an options object with a `then` would look like a promise to `await`.
   */
  whenExceeded?: 'block' | 'ask';
  /** The text of the refusal or the question; the default tells the model not to call the tool again. */
  message?: string | ((exceeded: ToolBudgetExceeded) => string);
  /** Names the budget's count in the turn state; needed only to keep it stable when setup changes. */
  name?: string;
}

/** The event fields a tool-call budget reads: any `intercept_tool_call` event has them. */
export interface ToolCallBudgetEvent {
  readonly toolName: string;
  /** Keys a session budget's count. */
  readonly sessionId?: string;
  readonly state: Record<string, unknown>;
}

export type ToolCallBudgetResult =
  | { readonly action: 'block'; readonly value: string }
  | { readonly action: 'ask'; readonly value: string }
  | undefined;

const MAKER = 'toolCallBudget';

/** What the default message says was used up, and until when not to call again, by scope. */
const MADE: Readonly<Record<BudgetScope, string>> = {
  turn: 'this turn has made them',
  session: 'this session has made them',
  window: 'that many were made in that time (by any session)',
};
const AGAIN: Readonly<Record<BudgetScope, string>> = {
  turn: 'in this turn',
  session: 'in this session',
  window: 'for now',
};

/**
 * An `intercept_tool_call` handler that lets at most `max` calls of the counted tools through in
 * a turn, and refuses (or asks about) every later one. A call counts when the budget sees it:
 * a handler cannot know whether a later one will block the call, so register the budget as the
 * last validator (`{ phase: 'validate', priority: 10_000 }`) to count only calls the other guards
 * let through (docs/policy.md, Budgets). Calls past the budget are not counted, so with
 * `whenExceeded: 'ask'` each of them is asked about. A subagent's calls count toward its turn's budget.
 * The count is kept in the turn's state; a value there that is not a count refuses the call.
 */
export function toolCallBudget(
  hermes: BudgetOwner,
  options: ToolCallBudgetOptions,
): (event: ToolCallBudgetEvent) => ToolCallBudgetResult | Promise<ToolCallBudgetResult> {
  if (options === null || typeof options !== 'object') {
    throw new TypeError(`${MAKER}(hermes, options): options must be an object such as { max: 20 }`);
  }
  const max = checkMax(MAKER, options.max);
  const { scope, windowMs } = checkScope(MAKER, options.scope, options.window);
  const filter = toolFilter(MAKER, options.tools);
  const then = options.whenExceeded ?? 'block';
  if (then !== 'block' && then !== 'ask') {
    throw new TypeError(
      `${MAKER}({ whenExceeded }): whenExceeded must be 'block' or 'ask', got ${describe(then)}`,
    );
  }
  const { message } = options;
  if (message !== undefined && typeof message !== 'string' && typeof message !== 'function') {
    throw new TypeError(
      `${MAKER}({ message }): message must be a string or a function, got ${describe(message)}`,
    );
  }
  const slot = budgetSlot(MAKER, hermes, 'tool-calls', options.name);
  const budget = slot.key.slice(slot.key.lastIndexOf('/') + 1);
  const text = (toolName: string): string =>
    authorsText(
      slot.label,
      message,
      { toolName, max, budget },
      `Tool call budget: at most ${max} calls of ${filter.shown} ${scopeWords(scope, options.window)}, and ${MADE[scope]}. Do not call ${toolName} again ${AGAIN[scope]}; go on without it, or tell the user what is left to do.`,
    );

  if (scope !== 'turn') {
    const lasting = new LastingCount(slot.label);
    return async (event) => {
      if (!filter.counts(event.toolName)) return undefined;
      const key = lastingKey(slot.key, scope, event.sessionId);
      if ('error' in key) return { action: 'block', value: `${slot.label}: ${key.error}` };
      const taken = await lasting.take(key.key, max, windowMs);
      if (taken === 'taken') return undefined;
      if (taken === 'full') return { action: then, value: text(event.toolName) };
      return { action: 'block', value: taken };
    };
  }

  return (event) => {
    if (!filter.counts(event.toolName)) return undefined;
    const count = readCount(event.state, slot);
    if (typeof count === 'string') return { action: 'block', value: count };
    if (count >= max) return { action: then, value: text(event.toolName) };
    event.state[slot.key] = count + 1;
    return undefined;
  };
}
