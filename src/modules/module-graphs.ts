import { statSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { MessageChannel, type MessagePort } from 'node:worker_threads';

/**
 * When a JavaScript entry loaded natively must be evaluated anew. Node keeps every module it
 * loaded by URL for the life of the process, so an entry is imported as
 * `…/index.mjs?hermes-graph=N` and the resolve hooks (loader/resolve-hooks.mjs) give the modules
 * it imports from its own package the same `N`: a new `N` re-reads the whole graph. The hooks
 * say which files a graph was read from; while none of them changed, the next load takes the
 * same URL and Node's copy, so loading again costs nothing and leaks nothing.
 */
export interface ModuleGraphs {
  /** The port the resolve hooks answer on (handed to `module.register`). */
  readonly hooksPort: MessagePort;
  /** The URL to import `file` by: the one it was last loaded by while its files are unchanged. */
  urlFor(file: string, pass: LoadPass): string;
  /** After `url` loaded: remember the files its graph was read from, and their stamps. */
  loaded(file: string, url: string): Promise<void>;
}

/**
 * One load of a runtime: the entries that need (re)loading in it share one new version, so the
 * helpers they share are shared, as on the first load.
 */
export interface LoadPass {
  version?: number;
}

/** How long to wait for the hooks to name a graph's files; past it, only the entry is watched. */
const ASK_TIMEOUT_MS = 2_000;

let lastVersion = 0;

export function moduleGraphs(): ModuleGraphs {
  const { port1: port, port2: hooksPort } = new MessageChannel();
  const records = new Map<string, { url: string; stamps: Map<string, string> }>();
  const waiting = new Map<number, (files: string[]) => void>();
  let lastAsk = 0;
  port.on('message', ({ id, files }: { id: number; files: string[] }) => {
    waiting.get(id)?.(files);
  });
  // Nothing to wait for between loads: the port must not keep the process alive.
  port.unref();

  /** The graph's files, as the hooks recorded them while resolving its imports. */
  const ask = (url: string, entry: string) =>
    new Promise<string[]>((resolve) => {
      const id = ++lastAsk;
      const timer = setTimeout(() => done([entry]), ASK_TIMEOUT_MS);
      timer.unref();
      const done = (files: string[]) => {
        clearTimeout(timer);
        waiting.delete(id);
        if (waiting.size === 0) port.unref();
        resolve(files);
      };
      waiting.set(id, done);
      port.ref();
      port.postMessage({ id, url });
    });

  return {
    hooksPort,
    urlFor(file, pass) {
      const record = records.get(file);
      if (record !== undefined && unchanged(record.stamps)) return record.url;
      pass.version ??= ++lastVersion;
      return `${pathToFileURL(file).href}?hermes-graph=${pass.version}`;
    },
    async loaded(file, url) {
      if (records.get(file)?.url === url) return;
      const files = await ask(url, file);
      records.set(file, { url, stamps: new Map(files.map((f) => [f, stampOf(f)])) });
    },
  };
}

function unchanged(stamps: ReadonlyMap<string, string>): boolean {
  for (const [file, stamp] of stamps) if (stampOf(file) !== stamp) return false;
  return true;
}

/** What an edit changes: the modification and change times, and the size. */
function stampOf(file: string): string {
  try {
    const { mtimeMs, ctimeMs, size } = statSync(file);
    return `${mtimeMs}:${ctimeMs}:${size}`;
  } catch {
    return 'missing';
  }
}
