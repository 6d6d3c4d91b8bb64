import type { DiagnosticCode } from './types.js';

/**
 * The diagnostic code of each error the framework throws while an extension sets up, kept beside
 * the error rather than on it: the error stays what it was (a TypeError is still one), and no error
 * an extension throws itself, whatever its own `code`, can pass for one of the framework's.
 */
const codes = new WeakMap<object, DiagnosticCode>();

export function withDiagnosticCode<E extends Error>(code: DiagnosticCode, error: E): E {
  codes.set(error, code);
  return error;
}

/** Runs `fn`; an error it throws leaves with `code`, unless it already had one. */
export function codingFailures<T>(code: DiagnosticCode, fn: () => T): T {
  try {
    return fn();
  } catch (error) {
    if (error instanceof Error && !codes.has(error)) codes.set(error, code);
    throw error;
  }
}

/** The code recorded for a framework error, else `fallback` (an error of the extension's own). */
export function diagnosticCodeOf(error: unknown, fallback: DiagnosticCode): DiagnosticCode {
  return (typeof error === 'object' && error !== null && codes.get(error)) || fallback;
}
