// Module resolution hooks for extensions and config files loaded with native `import()`, so they
// can import the framework and zod without installing anything. Registered once per process by
// src/modules/import-module.ts; `data` maps specifiers to URLs of modules that re-export what the
// running process already loaded (src/modules/framework-modules.ts), so nothing is read twice:
// - `always`: the framework itself, so every extension shares the running instance;
// - `fallback`: packages used only when the importing code has no copy of its own (zod), so a
//   host or an extension that pins its own version keeps it.
//
// Graph versions: an entry is imported as `file:///…/index.mjs?hermes-graph=N`, and every ES
// module or JSON file it imports from its own package (not another package's `node_modules`) is
// resolved with the same `hermes-graph=N`, so loading the entry with a new N evaluates its whole
// graph anew: an edit to a helper is seen, not only an edit to the entry. `data.graphs` is a port
// on which the loader asks which files an entry's graph was read from (to know when to bump N).
import { fileURLToPath } from 'node:url';

const GRAPH = 'hermes-graph';
/** Formats Node loads by URL, so a new query string is a new module (CommonJS is cached by path). */
const VERSIONED = new Set(['module', 'json', 'wasm', undefined, null]);

let always = {};
let fallback = {};
/** Versioned module URL → the versioned URLs it imports. */
const edges = new Map();

export function initialize(data) {
  always = data?.always ?? {};
  fallback = data?.fallback ?? {};
  const port = data?.graphs;
  port?.on('message', ({ id, url }) => {
    let files = [];
    try {
      files = reachableFiles(url);
    } finally {
      port.postMessage({ id, files });
    }
  });
}

export async function resolve(specifier, context, nextResolve) {
  const forced = always[specifier];
  if (forced !== undefined) return { url: forced, shortCircuit: true };
  const backup = fallback[specifier];
  if (backup === undefined) return versioned(await nextResolve(specifier, context), context);
  try {
    return versioned(await nextResolve(specifier, context), context);
  } catch (error) {
    if (error?.code !== 'ERR_MODULE_NOT_FOUND') throw error;
    return { url: backup, shortCircuit: true };
  }
}

/** The resolved module with its importer's graph version, when it belongs to that graph. */
function versioned(resolved, context) {
  const parentURL = context.parentURL;
  if (!parentURL?.startsWith('file:') || !resolved.url.startsWith('file:')) return resolved;
  const version = new URL(parentURL).searchParams.get(GRAPH);
  if (version === null || !VERSIONED.has(resolved.format)) return resolved;
  const url = new URL(resolved.url);
  // Another package's files are shared, as Node shares them: only the extension's own reload.
  if (packageOf(url.pathname) !== packageOf(new URL(parentURL).pathname)) return resolved;
  url.searchParams.set(GRAPH, version);
  const children = edges.get(parentURL) ?? new Set();
  children.add(url.href);
  edges.set(parentURL, children);
  return { ...resolved, url: url.href };
}

/** `/…/node_modules/@scope/name` of a path inside a package, `''` outside any. */
function packageOf(path) {
  const marker = '/node_modules/';
  const at = path.lastIndexOf(marker);
  if (at < 0) return '';
  const [first = '', second = ''] = path.slice(at + marker.length).split('/');
  return `${path.slice(0, at + marker.length)}${first.startsWith('@') ? `${first}/${second}` : first}`;
}

/** The files of every module reachable from `url` through versioned imports, itself included. */
function reachableFiles(url) {
  const seen = new Set([url]);
  const pending = [url];
  while (pending.length > 0) {
    for (const child of edges.get(pending.pop()) ?? []) {
      if (seen.has(child)) continue;
      seen.add(child);
      pending.push(child);
    }
  }
  return [...seen].map((u) => fileURLToPath(u));
}
