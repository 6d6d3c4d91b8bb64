/**
 * What a handler returns. The helpers build plain, frozen objects, so a handler may just as well
 * return `{ action, value?, metadata? }` literally; every result is validated against the hook
 * it came from by the chain runner (see `hooks/*.ts` for what each hook allows).
 *
 * A result's `value` and `metadata` cross to hosts, over the bridge and command hooks as JSON,
 * so they must be JSON data: plain objects, arrays, strings, finite numbers, booleans and null
 * (`chain/json-data.ts` has the rules, e.g. a key whose value is `undefined` is left out). Each
 * field is read once and copied; anything else is a handler error naming the key path
 * (`value.opts.when: a Date is not JSON data`), except that a `block` always stays a block: its
 * metadata is dropped instead, and the reason is logged and put in the trace.
 */
export type Metadata = Record<string, unknown>;

export interface PassResult {
  readonly action: 'pass';
  readonly metadata?: Metadata;
}
export interface RewriteResult<V = unknown> {
  readonly action: 'rewrite';
  readonly value: V;
  readonly metadata?: Metadata;
}
export interface BlockResult {
  readonly action: 'block';
  readonly value: string;
  readonly metadata?: Metadata;
}
export interface InjectSystemResult {
  readonly action: 'inject_system';
  readonly value: string;
  readonly metadata?: Metadata;
}
export interface InjectUserResult {
  readonly action: 'inject_user';
  readonly value: string;
  readonly metadata?: Metadata;
}

export type AnyHookResult =
  | PassResult
  | RewriteResult
  | BlockResult
  | InjectSystemResult
  | InjectUserResult;

/** The one shared `pass()` without metadata: returning it costs no allocation. */
export const PASS: PassResult = Object.freeze({ action: 'pass' });

export function pass(metadata?: Metadata): PassResult {
  return metadata === undefined ? PASS : Object.freeze({ action: 'pass', metadata });
}

export function rewrite<V>(value: V, metadata?: Metadata): RewriteResult<V> {
  return Object.freeze(
    metadata === undefined ? { action: 'rewrite', value } : { action: 'rewrite', value, metadata },
  );
}

export function block(message: string, metadata?: Metadata): BlockResult {
  return Object.freeze(
    metadata === undefined
      ? { action: 'block', value: message }
      : { action: 'block', value: message, metadata },
  );
}

export function injectSystem(text: string, metadata?: Metadata): InjectSystemResult {
  return Object.freeze(
    metadata === undefined
      ? { action: 'inject_system', value: text }
      : { action: 'inject_system', value: text, metadata },
  );
}

export function injectUser(text: string, metadata?: Metadata): InjectUserResult {
  return Object.freeze(
    metadata === undefined
      ? { action: 'inject_user', value: text }
      : { action: 'inject_user', value: text, metadata },
  );
}

/** The helpers under one name, `HookResult.block('…')` (README, An extension). */
export const HookResult = Object.freeze({ pass, rewrite, block, injectSystem, injectUser });
export type HookResult = AnyHookResult;
