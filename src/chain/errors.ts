import type { z } from 'zod';
import type { HookDeclaration } from '../hooks/declaration.js';
import { isPlainObject } from './frozen.js';

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

/** Why a thrown value made a handler fail, in one line. */
export function describeThrown(error: unknown): string {
  if (error instanceof HandlerTimeoutError) return error.message;
  if (error instanceof Error) return `threw ${error.name}: ${error.message}`;
  return `threw ${safeString(error)}`;
}

/**
 * Why a returned value is not a valid result for this hook. Called only once a result failed
 * the runner's checks, so it may take its time to be precise.
 */
export function describeInvalidResult(
  decl: HookDeclaration<unknown, unknown, unknown>,
  result: unknown,
): string {
  const allowed = ['pass', ...Object.keys(decl.actions), 'block'].join(', ');
  if (result === null || typeof result !== 'object' || Array.isArray(result)) {
    return `returned an invalid result (${kindOf(result)}); return undefined, pass(), or { action, value?, metadata? } with action one of ${allowed}`;
  }
  const { action } = result as { action?: unknown };
  if (typeof action !== 'string') {
    return `returned a result without a string "action"; ${decl.name} allows ${allowed}`;
  }
  const schema = decl.actions[action];
  if (action !== 'pass' && action !== 'block' && !schema) {
    return `returned unknown action "${action}"; ${decl.name} allows ${allowed}`;
  }
  if (action === 'block') {
    const { value } = result as { value?: unknown };
    if (typeof value !== 'string' || value.length === 0) {
      return `returned block without a message: value must be a non-empty string (got ${kindOf(value)})`;
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

function safeString(value: unknown): string {
  try {
    const text = typeof value === 'string' ? JSON.stringify(value) : String(value);
    return text.length > 80 ? `${text.slice(0, 77)}...` : text;
  } catch {
    return '(unprintable value)';
  }
}
