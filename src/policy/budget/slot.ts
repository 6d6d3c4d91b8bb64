/**
 * Where a budget keeps its count: one key of the turn's state (`event.state`), made from the
 * extension's name and the budget's, so budgets of two extensions, two budgets of one extension,
 * and the extension's own `hermes.turnState` slot (keyed by its bare name, which has no `/`) never
 * share a place. The count is a plain number: command hooks keep the state as JSON between their
 * processes, and a number survives that unchanged.
 */

/** What a budget needs of the extension: its name (the setup argument `hermes` has it). */
export interface BudgetOwner {
  readonly name: string;
}

/** One budget's place in the state, and how to name it in a message. */
export interface BudgetSlot {
  readonly key: string;
  /** `budget "NAME" of extension "EXT"`, for messages. */
  readonly label: string;
}

/** Names already given, per extension (its setup argument), so no two budgets share a count. */
const named = new WeakMap<object, Set<string>>();

/**
 * The slot of a new budget. Without a name, budgets are numbered per kind in the order setup makes
 * them (`tool-calls-1`, `tool-calls-2`, …): every process that loads the extension runs the same
 * setup, so the numbers agree across a command hook's processes.
 */
export function budgetSlot(
  maker: string,
  owner: BudgetOwner,
  kind: string,
  name: string | undefined,
): BudgetSlot {
  if (
    owner === null ||
    typeof owner !== 'object' ||
    typeof owner.name !== 'string' ||
    !owner.name
  ) {
    throw new TypeError(
      `${maker}(hermes, options): hermes must be the extension's setup argument (its extension name keys the budget's count in the turn state), got ${describe(owner)}`,
    );
  }
  if (name !== undefined && (typeof name !== 'string' || name === '')) {
    throw new TypeError(
      `${maker}({ name }): name must be a non-empty string, got ${describe(name)}`,
    );
  }
  let names = named.get(owner);
  if (names === undefined) {
    names = new Set();
    named.set(owner, names);
  }
  let chosen = name;
  for (let n = names.size + 1; chosen === undefined; n++) {
    if (!names.has(`${kind}-${n}`)) chosen = `${kind}-${n}`;
  }
  if (names.has(chosen)) {
    throw new TypeError(
      `${maker}({ name: ${JSON.stringify(chosen)} }): extension "${owner.name}" already has a budget named "${chosen}"; give each budget its own name, or reuse the handler made first`,
    );
  }
  names.add(chosen);
  return {
    key: `${owner.name}/budget/${chosen}`,
    label: `budget "${chosen}" of extension "${owner.name}"`,
  };
}

/**
 * The count kept in `state` for `slot`: 0 when the turn has none yet, a string saying what is
 * wrong when the value there is not a count. A handler cannot know who changed it, and a budget
 * that went on from a guess could let through calls past its limit: the caller refuses instead.
 */
export function readCount(state: Record<string, unknown>, slot: BudgetSlot): number | string {
  const kept = Object.hasOwn(state, slot.key) ? state[slot.key] : undefined;
  if (kept === undefined) return 0;
  if (typeof kept === 'number' && Number.isSafeInteger(kept) && kept >= 0) return kept;
  return `${slot.label}: the turn state's "${slot.key}" holds ${describe(kept)}, not a count, so the budget cannot tell how many calls this turn has made and refuses this one. Only the budget should write that key, so another handler wrote there (of this extension or another): find it and keep it off that key.`;
}

/** Checks a budget's `max`: a whole number of calls, 0 (nothing allowed) or more. */
export function checkMax(maker: string, max: unknown): number {
  if (typeof max !== 'number' || !Number.isSafeInteger(max) || max < 0) {
    throw new TypeError(
      `${maker}({ max }): max must be a whole number of calls, 0 or more, got ${describe(max)}`,
    );
  }
  return max;
}

/** A value as a message shows it: JSON where it can be, short. */
export function describe(value: unknown): string {
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch {
    text = undefined;
  }
  text ??= typeof value === 'function' ? 'a function' : String(value);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

/**
 * The author's message for a call past the budget, or `fallback` with the reason when their
 * function throws or gives no text: a refusal must not turn into a handler error, which
 * `before_llm_call` lets through by default (it fails open).
 */
export function authorsText<A>(
  label: string,
  message: string | ((exceeded: A) => string) | undefined,
  exceeded: A,
  fallback: string,
): string {
  if (typeof message === 'string') return message;
  if (message === undefined) return fallback;
  try {
    const text = message(exceeded);
    if (typeof text === 'string' && text !== '') return text;
    return `${fallback} (The ${label}'s message function gave ${describe(text)}, not a text.)`;
  } catch (error) {
    return `${fallback} (The ${label}'s message function threw: ${error instanceof Error ? error.message : describe(error)}.)`;
  }
}
