import { checkScope, LastingCount, lastingKey } from './lasting.js';
import {
  authorsText,
  type BudgetOwner,
  budgetSlot,
  checkMax,
  describe,
  readCount,
} from './slot.js';

/** The event fields a refusal limit reads: any `intercept_tool_call` event has them. */
export interface RefusalLimitEvent {
  readonly sessionId?: string;
  readonly state: Record<string, unknown>;
}

type RefusalLimitResult = { readonly action: 'block'; readonly value: string } | undefined;

/** What a refusal limit needs of the extension: its name, and `on` to register its two handlers. */
export interface RefusalLimitOwner extends BudgetOwner {
  on(
    hook: 'intercept_tool_call',
    handler: (event: RefusalLimitEvent) => RefusalLimitResult | Promise<RefusalLimitResult>,
    options: { phase: 'mutate' | 'validate'; priority: number },
  ): unknown;
}

export interface RefusalLimitOptions {
  /** Tool calls refused in a row before every later one is refused too. */
  max: number;
  /** How long the stop holds: the rest of the turn (`'turn'`, the default) or of the session. */
  scope?: 'turn' | 'session';
  /** The refusal once stopped, a string or a function of `{ max, budget }`. */
  message?: string | ((exceeded: { readonly max: number; readonly budget: string }) => string);
  /** Names the limit's count; needed only to keep it stable when setup changes. */
  name?: string;
}

const MAKER = 'refusalLimit';

/**
 * Stops an agent that keeps running into its guards: after `max` tool calls in a row were
 * refused, every later call of the turn (or session) is refused with the limit's message, and
 * the user decides what comes next. A call let through starts the row again.
 *
 * It registers two handlers on `hermes`: the first of every chain, which counts each call as
 * refused (and refuses once the row is full), and the last validator, which a call reaches only
 * when no guard refused it, and which empties the row. A handler that fails refuses the call, so
 * it counts as a refusal. The framework's own refusals (protected ground, a tool not offered) are
 * decided before any handler: they do not count.
 */
export function refusalLimit(hermes: RefusalLimitOwner, options: RefusalLimitOptions): void {
  if (options === null || typeof options !== 'object') {
    throw new TypeError(`${MAKER}(hermes, options): options must be an object such as { max: 5 }`);
  }
  const max = checkMax(MAKER, options.max);
  const { scope } = checkScope(MAKER, options.scope, undefined);
  if (scope === 'window') {
    throw new TypeError(
      `${MAKER}({ scope }): scope must be 'turn' or 'session' (a row of refusals has no window), got 'window'`,
    );
  }
  const { message } = options;
  if (message !== undefined && typeof message !== 'string' && typeof message !== 'function') {
    throw new TypeError(
      `${MAKER}({ message }): message must be a string or a function, got ${describe(message)}`,
    );
  }
  if (hermes === null || typeof hermes !== 'object' || typeof hermes.on !== 'function') {
    throw new TypeError(
      `${MAKER}(hermes, options): hermes must be the extension's setup argument (the limit registers its handlers with hermes.on)`,
    );
  }
  const slot = budgetSlot(MAKER, hermes, 'refusals', options.name);
  const budget = slot.key.slice(slot.key.lastIndexOf('/') + 1);
  const text = (): string =>
    authorsText(
      slot.label,
      message,
      { max, budget },
      `Refusal limit: ${max} tool calls in a row were refused, so every tool call of this ${scope} is refused now. Stop trying: tell the user what you were doing and which guard refused it, and let them decide.`,
    );

  let first: (event: RefusalLimitEvent) => RefusalLimitResult | Promise<RefusalLimitResult>;
  let last: (event: RefusalLimitEvent) => RefusalLimitResult | Promise<RefusalLimitResult>;
  if (scope === 'turn') {
    first = (event) => {
      const row = readCount(event.state, slot);
      if (typeof row === 'string') return { action: 'block', value: row };
      if (row >= max) return { action: 'block', value: text() };
      event.state[slot.key] = row + 1;
      return undefined;
    };
    last = (event) => {
      event.state[slot.key] = 0;
      return undefined;
    };
  } else {
    const lasting = new LastingCount(slot.label);
    first = async (event) => {
      const key = lastingKey(slot.key, 'session', event.sessionId);
      if ('error' in key) return { action: 'block', value: `${slot.label}: ${key.error}` };
      const taken = await lasting.take(key.key, max);
      if (taken === 'taken') return undefined;
      return { action: 'block', value: taken === 'full' ? text() : taken };
    };
    last = async (event) => {
      const key = lastingKey(slot.key, 'session', event.sessionId);
      if ('error' in key) return { action: 'block', value: `${slot.label}: ${key.error}` };
      const set = await lasting.set(key.key, 0);
      return typeof set === 'string' ? { action: 'block', value: set } : undefined;
    };
  }
  // The extremes of the order (docs/chain-semantics.md, How a chain runs): before every
  // handler, and after every validator.
  hermes.on('intercept_tool_call', first, { phase: 'mutate', priority: -Number.MAX_VALUE });
  hermes.on('intercept_tool_call', last, { phase: 'validate', priority: Number.MAX_VALUE });
}
