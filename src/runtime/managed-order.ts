import type { Ordered } from '../extensions/order-by-name.js';
import type { Diagnostic } from '../extensions/types.js';

/**
 * Registrations with every `before` / `after` of a lower layer's extension that names a managed
 * one taken out, each a `MANAGED_OVERRIDE` diagnostic (docs/teams.md, Managed policy): a managed
 * guard keeps the place its priority and its own constraints give it, so no extension of the
 * user's or the project's can move itself, or the guard, to the other side of it.
 */
export function withoutManagedOrder(
  registrations: readonly Ordered[],
  managed: ReadonlySet<string>,
  pathOf: (extension: string) => string | undefined,
  diagnostics: Diagnostic[],
): Ordered[] {
  if (managed.size === 0) return [...registrations];
  return registrations.map((entry) => {
    const { registration } = entry;
    const extension = registration.handler.extension;
    if (managed.has(extension)) return entry;
    const named = (names: readonly string[], option: 'before' | 'after') => {
      for (const name of names.filter((n) => managed.has(n))) {
        const file = pathOf(extension);
        diagnostics.push({
          code: 'MANAGED_OVERRIDE',
          severity: 'warning',
          extension,
          ...(file === undefined ? {} : { file }),
          message: `"${extension}" asks to run ${option} "${name}" on ${registration.handler.hook}: ignored, "${name}" is managed and keeps its place`,
        });
      }
      return names.filter((n) => !managed.has(n));
    };
    const before = named(registration.before, 'before');
    const after = named(registration.after, 'after');
    if (
      before.length === registration.before.length &&
      after.length === registration.after.length
    ) {
      return entry;
    }
    return { ...entry, registration: { ...registration, before, after } };
  });
}
