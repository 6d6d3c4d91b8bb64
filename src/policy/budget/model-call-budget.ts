import {
  authorsText,
  type BudgetOwner,
  budgetSlot,
  checkMax,
  describe,
  readCount,
} from './slot.js';

export interface ModelCallBudgetOptions {
  /** Model requests each turn may make (the main agent's and its subagents' together). */
  max: number;
  /** The block's text: the host shows it as the turn's last answer. */
  message?: string | ((exceeded: { readonly max: number; readonly budget: string }) => string);
  /** Names the budget's count in the turn state; needed only to keep it stable when setup changes. */
  name?: string;
}

/** The event fields a model-call budget reads: any `before_llm_call` event has them. */
export interface ModelCallBudgetEvent {
  readonly state: Record<string, unknown>;
}

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
): (
  event: ModelCallBudgetEvent,
) => { readonly action: 'block'; readonly value: string } | undefined {
  if (options === null || typeof options !== 'object') {
    throw new TypeError(`${MAKER}(hermes, options): options must be an object such as { max: 10 }`);
  }
  const max = checkMax(MAKER, options.max);
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
      `Model call budget: at most ${max} model requests per turn, and this turn has made them, so it stops here. Send a new message to go on.`,
    );

  return (event) => {
    const count = readCount(event.state, slot);
    if (typeof count === 'string') return { action: 'block', value: count };
    if (count >= max) return { action: 'block', value: text() };
    event.state[slot.key] = count + 1;
    return undefined;
  };
}
