import type { z } from 'zod';
import type { AnyHookResult, Metadata } from './results.js';

export type OnErrorPolicy = 'pass' | 'block';

/** What every handler event carries besides its hook's own payload. */
export interface TurnContext {
  readonly sessionId: string;
  readonly turnId: string;
  readonly platform: string;
  /** The per-turn state: shared by every handler of every chain in this turn, writable. */
  readonly state: Record<string, unknown>;
}

/**
 * Everything one hook point means, in one place (tapable's one-file-per-hook-kind idea):
 * its payload (shape, wire names, samples), which actions a handler may return (as zod schemas),
 * and how a result folds into the value the chain threads. The generic runner in `chain/` knows
 * nothing else about hooks; the bridge, `hermes extensions test` and `doctor` read the payload
 * side from here, so adding a field to a hook means editing its one file.
 */
export interface HookDeclaration<Input, Value, Event> {
  readonly name: string;
  /**
   * The payload a host hands in, as zod. The Turn guards its methods with a cheap check and uses
   * this only to word the error; the bridge and `hermes extensions test --input` check data with it.
   * Its shape names every field of `Input`, as `wire.names` does: a field left out of either does
   * not compile.
   */
  readonly input: z.ZodType<Input> & {
    readonly shape: { readonly [K in keyof Input]-?: z.ZodType };
  };
  readonly wire: WireForm<Input, Value>;
  /** Payloads for examples and dry runs (`hermes extensions test`, `doctor`); the first is the example. */
  readonly samples: readonly [Input, ...Input[]];
  /** Hooks whose handlers may filter by tool name (`tools`): a sample call of that tool, for dry runs. */
  readonly sampleOfTool?: (toolName: string) => Input;
  /** Fail open for hooks that only shape a request, fail closed for hooks that guard actions. */
  readonly defaultOnError: OnErrorPolicy;
  /** One schema per allowed action; `pass`, `block` and `ask` are checked by the runner itself. */
  readonly actions: Readonly<Record<string, z.ZodType>>;
  /**
   * Handlers may `ask` for a person's approval: it does not end the chain, and the outcome
   * carries the first ask (docs/hosts.md, Asking a person).
   */
  readonly asks?: boolean;
  /**
   * Turns a result's value into data before it is copied and checked, given the value the
   * handler saw: `restrictTools(predicate)` becomes the list of names the predicate keeps. May
   * throw, with a message that says what was wrong (a handler error).
   */
  prepare?(action: string, resultValue: unknown, value: Value): unknown;
  /** The value as handlers first see it: a read-only copy of what the host passed in. */
  view(input: Input): Value;
  /** The outcome's value when no handler changed anything: the host's own input. */
  unchanged(input: Input): Value;
  /** The frozen event handed to handlers while the value and the metadata are these. */
  event(input: Input, value: Value, turn: TurnContext, metadata: Metadata): Event;
  /**
   * Apply a validated rewrite or injection to the value, returning the new read-only value. The
   * result's `value` and `metadata` are the runner's frozen copies, checked to be JSON data
   * (`chain/json-data.ts`), so they are used as they are.
   */
  fold(value: Value, result: AnyHookResult, extension: string): Value;
}

/** Any hook's declaration, as the generic runner holds it. */
export type AnyHookDeclaration = HookDeclaration<unknown, unknown, unknown>;

/** How a hook's payload and value are spelled over the bridge (snake_case, as the Python agent speaks). */
export interface WireForm<Input, Value> {
  /** The snake_case name of every payload field; `hermes extensions test --input` takes either. */
  readonly names: { readonly [K in keyof Input]-?: string };
  /** Converts snake_case keys nested inside fields (a message's `tool_call_id`), after the check. */
  readonly fromWire?: (input: Input) => Input;
  /** The outcome's value as the bridge answers it; as it is when absent. */
  readonly valueToWire?: (value: Value) => unknown;
}
