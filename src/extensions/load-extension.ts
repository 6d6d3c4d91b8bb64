import { dirname } from 'node:path';
import type { ModuleLoader } from '../modules/import-module.js';
import type { ReadGuard } from '../modules/read-guard.js';
import { type ExtensionDefinition, findDefinitionProblem } from './define.js';
import type { DiscoveredExtension } from './discovery.js';
import { noteExtensionPlace, runOwnedBy } from './owner.js';
import { SETUP_TIMEOUT_MS } from './setup.js';
import type { ExtensionCandidate } from './types.js';

/**
 * Imports one discovered extension and checks its default export. Never throws: a module that
 * does not load (syntax error, missing import, throw at top level) or exports no valid extension
 * becomes a candidate with a `loadError`, so it is listed and diagnosed and the others go on.
 * Nor does it hang: a module still loading after `timeoutMs` (a top-level `await` that never
 * settles) is a load error too — the import cannot be cancelled, but nothing waits for it, so a
 * hook process still answers, and denies, before the agent's own hook timeout lets the call run.
 */
export async function loadExtension(
  found: DiscoveredExtension,
  loader: ModuleLoader,
  guard?: ReadGuard,
  timeoutMs = SETUP_TIMEOUT_MS,
): Promise<ExtensionCandidate> {
  const started = performance.now();
  const base = {
    name: found.label,
    source: found.source,
    path: found.location,
    extensionDir: found.entry === found.location ? dirname(found.location) : found.location,
  };
  const took = () => performance.now() - started;
  let module: Record<string, unknown>;
  try {
    // What its top level starts (a timer, a promise) is the extension's, by the name it is found by.
    const loading = runOwnedBy(found.label, () =>
      found.compiled ? found.compiled() : loader.import(found.entry, guard),
    );
    module = await withinTime(loading, timeoutMs);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    const code = error instanceof LoadTimeout ? 'LOAD_TIMEOUT' : 'LOAD_FAILED';
    const message = `could not load ${found.entry}: ${reason}`;
    return { ...base, loadError: { code, message }, loadMs: took() };
  }
  // jiti answers `default` with the whole module when there is none (CommonJS interop): only an
  // own `default` key is a default export.
  const definition = Object.keys(module).includes('default') ? module.default : undefined;
  if (definition === undefined) {
    return {
      ...base,
      loadError: {
        code: 'NO_DEFAULT_EXPORT',
        message: `${found.entry} has no default export; write \`export default defineExtension({ ... })\``,
      },
      loadMs: took(),
    };
  }
  const problem = findDefinitionProblem(definition);
  if (problem) {
    return {
      ...base,
      loadError: {
        code: 'NOT_AN_EXTENSION',
        message: `${found.entry}: default export is not an extension: ${problem}`,
      },
      loadMs: took(),
    };
  }
  const extension = definition as ExtensionDefinition<unknown>;
  noteExtensionPlace(found.location, extension.name);
  return { ...base, name: extension.name, definition: extension, loadMs: took() };
}

/** Only the timer below makes one, so no module's own error can pass for a timeout. */
class LoadTimeout extends Error {}

function withinTime<T>(loading: Promise<T>, timeoutMs: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new LoadTimeout(`it did not finish loading within ${timeoutMs} ms`)),
      timeoutMs,
    );
  });
  return Promise.race([loading, late]).finally(() => clearTimeout(timer));
}
