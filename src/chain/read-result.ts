import type { z } from 'zod';
import type { AnyHookDeclaration } from '../hooks/declaration.js';
import { isPlainObject } from '../hooks/frozen.js';
import { type RememberScope, rememberScopeProblem } from '../hooks/remember-scope.js';
import type { Metadata } from '../hooks/results.js';
import { describeInvalidResult, describeThrown } from './errors.js';
import { jsonDataCopy } from './json-data.js';

/**
 * A handler's result with each field read once, its data copied as frozen JSON data; or, as a
 * string, why the result is not valid. `current` is the value the handler saw. Throws only when
 * reading the result throws (a getter, a proxy). What was read is what is checked and what is
 * folded: a getter cannot show the checks one value and the fold another.
 *
 * A `block` or an `ask` whose metadata is not JSON data stays what it was (`droppedMetadata`
 * says why its metadata was dropped): a handler error there would be ignored under
 * `onError: 'pass'` and a block or an ask would turn into a pass. Any other result with data
 * that is not JSON data is a handler error naming the key path.
 */
export function readResult(
  decl: AnyHookDeclaration,
  current: unknown,
  result: unknown,
): ReadResult | string {
  if (typeof result !== 'object') return describeInvalid(decl, result);
  const { action, value, metadata } = result as Partial<ReadResult>;
  if (metadata !== undefined && !isPlainObject(metadata)) {
    return describeInvalid(decl, { action, value, metadata });
  }
  let remember: RememberScope | undefined;
  if (action === 'ask' && decl.asks === true) {
    // Read once, and only for an ask: what the asker allows an answer to be remembered for.
    const named = (result as { remember?: unknown }).remember;
    if (named !== undefined) {
      const problem = rememberScopeProblem(named);
      if (problem !== undefined) return `returned ask with an invalid remember: ${problem}`;
      remember = Object.freeze({
        args: Object.freeze(JSON.parse(JSON.stringify((named as RememberScope).args))),
      });
    }
  }
  let schema: z.ZodType | undefined;
  if (action === 'pass') {
    if (value !== undefined) return describeInvalid(decl, { action, value, metadata });
  } else if (action === 'block' || (action === 'ask' && decl.asks === true)) {
    if (typeof value !== 'string' || value.length === 0) {
      return describeInvalid(decl, { action, value, metadata });
    }
  } else {
    const actions = decl.actions;
    if (typeof action === 'string' && Object.hasOwn(actions, action)) schema = actions[action];
    if (schema === undefined) return describeInvalid(decl, { action, value, metadata });
    const extra = unknownKey(result as object);
    if (extra !== undefined) {
      return `returned ${action} with an unknown key "${extra}"; a result has only action, value and metadata`;
    }
  }
  let copiedMetadata: Metadata | undefined;
  let droppedMetadata: string | undefined;
  if (metadata !== undefined) {
    // Not frozen at the top: only spread into the frozen merged metadata.
    const copy = jsonDataCopy(metadata, 'metadata', false);
    if (copy.ok) copiedMetadata = copy.value as Metadata;
    else if (action === 'block' || action === 'ask') {
      droppedMetadata = `returned ${action} with ${copy.reason}`;
    } else return `returned ${action} with ${copy.reason}`;
  }
  if (schema === undefined) {
    const read = { action: action as string, value, metadata: copiedMetadata, droppedMetadata };
    return remember === undefined ? read : { ...read, remember };
  }
  let prepared = value;
  if (decl.prepare !== undefined) {
    try {
      prepared = decl.prepare(action as string, value, current);
    } catch (error) {
      return `returned ${action} that cannot be applied: ${describeThrown(error)}`;
    }
  }
  const copy = jsonDataCopy(prepared, 'value');
  if (!copy.ok) return `returned ${action} with ${copy.reason}`;
  // What the schema checks is exactly what is returned: no field left unchecked.
  const read: ReadResult = {
    action: action as string,
    value: copy.value,
    metadata: copiedMetadata,
  };
  if (!schema.safeParse(read).success) return describeInvalid(decl, read);
  return read;
}

/** A result with its fields read once: data fields are frozen JSON data. */
export interface ReadResult {
  action: string;
  value: unknown;
  metadata: Metadata | undefined;
  /** Why a block's metadata was dropped (it was not JSON data). */
  droppedMetadata?: string | undefined;
  /** An ask's remember scope. */
  remember?: RememberScope;
}

/** A key a result may not have (a rewrite's schema is strict): found without reading a value. */
function unknownKey(result: object): string | undefined {
  const keys = Object.keys(result);
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i] as string;
    if (key !== 'action' && key !== 'value' && key !== 'metadata') return key;
  }
  return undefined;
}

/**
 * The precise reason a result is invalid, worked out only once it is (off the hot path). Given the
 * fields as read (a fields' value may still be a proxy), so guarded.
 */
function describeInvalid(decl: AnyHookDeclaration, result: unknown): string {
  try {
    return describeInvalidResult(decl, result);
  } catch (error) {
    return `returned an invalid result that cannot be read: ${describeThrown(error)}`;
  }
}
