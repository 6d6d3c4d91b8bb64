import { type BudgetScope, checkScope, LastingCount, lastingKey, scopeWords } from './lasting.js';
import {
  authorsText,
  type BudgetOwner,
  budgetSlot,
  checkMax,
  describe,
  readCount,
} from './slot.js';

export interface ModelCallBudgetOptions {
  /** Model requests each turn (session, window) may make (the main agent's and its subagents' together). */
  max: number;
  /** How far the count reaches: `'turn'` (the default), `'session'` or `'window'`, as for tool calls. */
  scope?: BudgetScope;
  /** With `scope: 'window'`: its length, such as `'1h'`. */
  window?: string;
  /** The block's text: the host shows it as the turn's last answer. */
  message?: string | ((exceeded: { readonly max: number; readonly budget: string }) => string);
  /** Names the budget's count in the turn state; needed only to keep it stable when setup changes. */
  name?: string;
}

/** The event fields a model-call budget reads: any `before_llm_call` event has them. */
export interface ModelCallBudgetEvent {
  readonly state: Record<string, unknown>;
  /** Keys a session budget's count. */
  readonly sessionId?: string;
}

type ModelCallBudgetResult = { readonly action: 'block'; readonly value: string } | undefined;

const MAKER = 'modelCallBudget';

/**
 * A `before_llm_call` handler that lets at most `max` model requests through in a turn and blocks
 * the next, which ends the turn with the message. It counts the events it sees rather than trusting
 * `iteration`, which starts again in a subagent's loop; a request a later handler blocks still
 * counts. A value in the budget's key that is not a count blocks, as for tool calls.
 */
export function modelCallBudget(
  hermes: BudgetOwner,
  options: ModelCallBudgetOptions,
): (event: ModelCallBudgetEvent) => ModelCallBudgetResult | Promise<ModelCallBudgetResult> {
  if (options === null || typeof options !== 'object') {
    throw new TypeError(`${MAKER}(hermes, options): options must be an object such as { max: 10 }`);
  }
  const max = checkMax(MAKER, options.max);
  const { scope, windowMs } = checkScope(MAKER, options.scope, options.window);
  const { message } = options;
  if (message !== undefined && typeof message !== 'string' && typeof message !== 'function') {
    throw new TypeError(
      `${MAKER}({ message }): message must be a string or a function, got ${describe(message)}`,
    );
  }
  const slot = budgetSlot(MAKER, hermes, 'model-calls', options.name);
  const budget = slot.key.slice(slot.key.lastIndexOf('/') + 1);
  const text = (): string =>
    authorsText(
      slot.label,
      message,
      { max, budget },
      scope === 'turn'
        ? `Model call budget: at most ${max} model requests per turn, and this turn has made them, so it stops here. Send a new message to go on.`
        : `Model call budget: at most ${max} model requests ${scopeWords(scope, options.window)}, and ${scope === 'session' ? 'this session has made them' : 'that many were made in that time (by any session)'}, so it stops here.`,
    );

  if (scope !== 'turn') {
    const lasting = new LastingCount(slot.label);
    return async (event) => {
      const key = lastingKey(slot.key, scope, event.sessionId);
      if ('error' in key) return { action: 'block', value: `${slot.label}: ${key.error}` };
      const taken = await lasting.take(key.key, max, windowMs);
      if (taken === 'taken') return undefined;
      return { action: 'block', value: taken === 'full' ? text() : taken };
    };
  }

  return (event) => {
    const count = readCount(event.state, slot);
    if (typeof count === 'string') return { action: 'block', value: count };
    if (count >= max) return { action: 'block', value: text() };
    event.state[slot.key] = count + 1;
    return undefined;
  };
}
