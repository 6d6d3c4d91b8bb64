import type { z } from 'zod';
import type { AnyHookDeclaration } from '../hooks/declaration.js';
import { isPlainObject } from '../hooks/frozen.js';

/** A handler failed: threw, rejected, returned an invalid result or timed out. */
export class HookHandlerError extends Error {
  override readonly name = 'HookHandlerError';
  constructor(
    readonly extension: string,
    readonly hook: string,
    readonly reason: string,
    options?: { cause?: unknown },
  ) {
    super(`extension "${extension}" failed in ${hook}: ${reason}`, options);
  }
}

export class HandlerTimeoutError extends Error {
  override readonly name = 'HandlerTimeoutError';
  constructor(readonly timeoutMs: number) {
    super(`timed out after ${timeoutMs} ms (timeoutMs)`);
  }
}

/** Why a thrown value made a handler fail, in one line. Never throws. */
export function describeThrown(error: unknown): string {
  return isTimeout(error)
    ? (error as HandlerTimeoutError).message
    : `threw ${describeError(error)}`;
}

/** Said of a thrown value that cannot be looked at: a proxy whose traps throw, a revoked one. */
const UNREADABLE = 'a value that cannot be read';

/**
 * What a thrown (or rejected) value says about itself, in one line: `Name: message` for an Error,
 * a short printout otherwise. Never throws, whatever the value: an Error's `name` or `message`
 * may be a getter that throws, a value may be a proxy whose every trap throws (`instanceof`
 * included), and a describer that threw would turn a handled failure into a crash or a chain
 * that never settles. Each field is read once, each read guarded; what cannot be read is said so.
 */
export function describeError(error: unknown): string {
  let isError: boolean;
  try {
    isError = error instanceof Error;
  } catch {
    return UNREADABLE;
  }
  if (!isError) return safeString(error);
  const name = readText(error as Error, 'name') ?? 'Error';
  const message = readText(error as Error, 'message');
  return message === undefined ? `${name} (its message cannot be read)` : `${name}: ${message}`;
}

function isTimeout(error: unknown): boolean {
  try {
    return error instanceof HandlerTimeoutError;
  } catch {
    return false;
  }
}

/** A field of an Error as text, or undefined when it cannot be read. */
function readText(error: Error, field: 'name' | 'message'): string | undefined {
  let value: unknown;
  try {
    value = error[field];
  } catch {
    return undefined;
  }
  return typeof value === 'string' ? value : safeString(value);
}

/**
 * Why a returned value is not a valid result for this hook. Called only once a result failed
 * the runner's checks, so it may take its time to be precise.
 */
export function describeInvalidResult(decl: AnyHookDeclaration, result: unknown): string {
  const allowed = [
    'pass',
    ...Object.keys(decl.actions),
    'block',
    ...(decl.asks ? ['ask'] : []),
  ].join(', ');
  if (result === null || typeof result !== 'object' || Array.isArray(result)) {
    return `returned an invalid result (${kindOf(result)}); return undefined, pass(), or { action, value?, metadata? } with action one of ${allowed}`;
  }
  const { action } = result as { action?: unknown };
  if (typeof action !== 'string') {
    return `returned a result without a string "action"; ${decl.name} allows ${allowed}`;
  }
  const schema = Object.hasOwn(decl.actions, action) ? decl.actions[action] : undefined;
  const asks = action === 'ask' && decl.asks === true;
  if (action !== 'pass' && action !== 'block' && !asks && !schema) {
    return `returned unknown action "${action}"; ${decl.name} allows ${allowed}`;
  }
  if (action === 'block' || asks) {
    const { value } = result as { value?: unknown };
    if (typeof value !== 'string' || value.length === 0) {
      return `returned ${action} without a message: value must be a non-empty string (got ${kindOf(value)})`;
    }
  }
  const { metadata, value } = result as { metadata?: unknown; value?: unknown };
  if (metadata !== undefined && !isPlainObject(metadata)) {
    return `returned ${action} with invalid metadata: must be a plain object (got ${kindOf(metadata)})`;
  }
  if (action === 'pass' && value !== undefined) {
    return 'returned pass with a value; pass takes only metadata (use rewrite to change the value)';
  }
  if (schema) {
    const parsed = schema.safeParse(result);
    if (!parsed.success) return `returned an invalid ${action}: ${formatIssues(parsed.error)}`;
  }
  return `returned an invalid ${action} result`;
}

function formatIssues(error: z.ZodError): string {
  return error.issues
    .slice(0, 3)
    .map((issue) => {
      const path = issue.path.map(String).join('.');
      return path ? `${path}: ${issue.message}` : issue.message;
    })
    .join('; ');
}

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object')
    return `an object (${Object.getPrototypeOf(value)?.constructor?.name ?? 'null prototype'})`;
  return `${typeof value} ${safeString(value)}`;
}

/** A short printout of any value; `String()` may call a throwing `toString` or proxy trap. */
function safeString(value: unknown): string {
  try {
    const text = typeof value === 'string' ? JSON.stringify(value) : String(value);
    return text.length > 80 ? `${text.slice(0, 77)}...` : text;
  } catch {
    return UNREADABLE;
  }
}
