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
 * its payload, which actions a handler may return (as zod schemas), and how a result folds into
 * the value the chain threads. The generic runner in `chain/` knows nothing else about hooks.
 */
export interface HookDeclaration<Input, Value, Event> {
  readonly name: string;
  /** Fail open for hooks that only shape a request, fail closed for hooks that guard actions. */
  readonly defaultOnError: OnErrorPolicy;
  /** One schema per allowed action; `pass` and `block` are checked by the runner itself. */
  readonly actions: Readonly<Record<string, z.ZodType>>;
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
  fold(value: Value, result: AnyHookResult): Value;
}
