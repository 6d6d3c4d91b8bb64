import type { RegisteredHandler } from '../chain/handler.js';
import { type Ordered, orderByName } from './order-by-name.js';
import type { Diagnostic } from './types.js';

/**
 * Who runs first, all in this file and order-by-name.ts. Each chain runs its mutators, then its
 * validators (`phase: 'validate'`); within a phase, lower `priority` first; on equal priorities,
 * the extension loaded first; within one extension, the handler registered first. Then `before` /
 * `after` (order-by-name.ts) move the handlers that name other extensions, as little as needed,
 * within their hook and phase; what they could not do is returned as diagnostics.
 *
 * Load order: the sources global → `extensions.paths` → project, and by extension name
 * (`byName`) within each source; `createRuntime`'s in-memory extensions by name, never by array
 * position. A folder's entries are read by name too, so discovery never depends on the file system.
 *
 * Pure, and run once when the runtime is built: dispatch never orders anything. `known` is every
 * extension discovered, whatever its status, so a name that is merely not running is not
 * mistaken for a typo.
 */
export function orderHandlers(
  registrations: ReadonlyArray<Ordered>,
  known: readonly string[] = [],
): { handlers: RegisteredHandler[]; diagnostics: Diagnostic[] } {
  const sorted = [...registrations].sort(
    (a, b) =>
      phaseRank(a.registration.handler) - phaseRank(b.registration.handler) ||
      a.registration.handler.priority - b.registration.handler.priority ||
      a.loadOrder - b.loadOrder ||
      a.registration.index - b.registration.index,
  );
  // Without a name anywhere, priority alone decides, as it always has.
  const named = sorted.some((e) => e.registration.before.length + e.registration.after.length > 0);
  if (!named) return { handlers: sorted.map(handlerOf), diagnostics: [] };
  const diagnostics: Diagnostic[] = [];
  return { handlers: orderByName(sorted, known, diagnostics).map(handlerOf), diagnostics };
}

/** Load order within a source: by name, compared as code units (the same on every machine). */
export function byName(a: { name: string }, b: { name: string }): number {
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

function handlerOf(entry: Ordered): RegisteredHandler {
  return entry.registration.handler;
}

function phaseRank(handler: RegisteredHandler): number {
  return handler.phase === 'validate' ? 1 : 0;
}
