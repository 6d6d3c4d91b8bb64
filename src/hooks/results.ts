import type { RememberScope } from './remember-scope.js';

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

/**
 * `intercept_tool_call`: a person must approve this call. Unlike a block it does not end the
 * chain: later handlers still run, a later block still blocks and later rewrites still apply;
 * the outcome carries the first ask (docs/hosts.md, Asking a person).
 */
export interface AskResult {
  readonly action: 'ask';
  readonly value: string;
  readonly metadata?: Metadata;
  /**
   * What a person's "for this session" or "always for this project" answer may be remembered
   * for: this extension, this tool, and the arguments named (docs/hosts.md, Remembered approvals).
   * Without it the answer holds for this call only.
   */
  readonly remember?: RememberScope;
}

/**
 * `before_llm_call`: the tools offered to this request, narrowed to `tools`, or to the names the
 * predicate keeps (the runner applies it to the list the handler sees, so it never crosses a
 * process boundary). Ephemeral like an injection (docs/hosts.md, Restricting the tools of a request).
 */
export interface RestrictToolsResult {
  readonly action: 'restrict_tools';
  readonly value: {
    readonly tools: readonly string[] | ((toolName: string) => boolean);
    readonly reason?: string;
  };
  readonly metadata?: Metadata;
}

export type AnyHookResult =
  | PassResult
  | RewriteResult
  | BlockResult
  | AskResult
  | InjectSystemResult
  | InjectUserResult
  | RestrictToolsResult;

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

export function ask(reason: string, metadata?: Metadata, remember?: RememberScope): AskResult {
  const base: AskResult =
    metadata === undefined
      ? { action: 'ask', value: reason }
      : { action: 'ask', value: reason, metadata };
  return Object.freeze(remember === undefined ? base : { ...base, remember });
}

export function restrictTools(
  tools: readonly string[] | ((toolName: string) => boolean),
  reason?: string,
  metadata?: Metadata,
): RestrictToolsResult {
  const value = Object.freeze(reason === undefined ? { tools } : { tools, reason });
  return Object.freeze(
    metadata === undefined
      ? { action: 'restrict_tools', value }
      : { action: 'restrict_tools', value, metadata },
  );
}

/** The helpers under one name, `HookResult.block('…')` (docs/chain-semantics.md, An extension). */
export const HookResult = Object.freeze({
  pass,
  rewrite,
  block,
  ask,
  injectSystem,
  injectUser,
  restrictTools,
});
export type HookResult = AnyHookResult;
