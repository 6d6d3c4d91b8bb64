import type { RegisteredHandler } from '../chain/handler.js';
import type { Registration } from './setup.js';

/**
 * Who runs first, all in this file. Each chain runs its mutators, then its validators
 * (`phase: 'validate'`); within a phase, lower `priority` first; on equal priorities, the
 * extension loaded first; within one extension, the handler registered first.
 *
 * Load order: the sources global → `extensions.paths` → project, and by extension name
 * (`byName`) within each source; `createRuntime`'s in-memory extensions by name, never by array
 * position. A folder's entries are read by name too, so discovery never depends on the file system.
 */
export function orderHandlers(
  registrations: ReadonlyArray<{ loadOrder: number; registration: Registration }>,
): RegisteredHandler[] {
  return [...registrations]
    .sort(
      (a, b) =>
        phaseRank(a.registration.handler) - phaseRank(b.registration.handler) ||
        a.registration.handler.priority - b.registration.handler.priority ||
        a.loadOrder - b.loadOrder ||
        a.registration.index - b.registration.index,
    )
    .map(({ registration }) => registration.handler);
}

/** Load order within a source: by name, compared as code units (the same on every machine). */
export function byName(a: { name: string }, b: { name: string }): number {
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

function phaseRank(handler: RegisteredHandler): number {
  return handler.phase === 'validate' ? 1 : 0;
}
