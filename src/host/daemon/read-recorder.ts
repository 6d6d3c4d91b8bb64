import { AsyncLocalStorage } from 'node:async_hooks';
import fs, { type Stats } from 'node:fs';
import { createRequire, syncBuiltinESMExports } from 'node:module';
import { resolve, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { MessageChannel, type MessagePort } from 'node:worker_threads';
import { PACKAGE_ROOT } from '../../package-root.js';
import { digestOf, kindOf, listingOf, observe, type ReadRecord } from './read-stamps.js';

/** What one recorded piece of work read, and how it ended. */
export interface Recorded<T> {
  records: ReadRecord[];
  outcome: { ok: true; value: T } | { ok: false; error: unknown };
}

export interface ReadRecorder {
  /** Runs `work`, recording what it (and only it: other work meanwhile is not) reads. */
  record<T>(work: () => Promise<T>): Promise<Recorded<T>>;
}

interface Recording {
  records: ReadRecord[];
  open: boolean;
}

/**
 * Records what loading a runtime reads, in a worker thread of the hook daemon, so the daemon
 * knows exactly what the runtime was built from (watch-set.ts): every file read through `node:fs`
 * — config, the trust record, the files trust covers, TypeScript and CommonJS sources, the data
 * an extension reads in `setup` — each stamped before it is read and digested as read; every
 * folder listed, by its names; every path looked at, by what it is. Code Node's own ES module
 * loader reads (a JavaScript extension, a JSON file it imports) is recorded by a load hook
 * (loader/record-loads.mjs), registered beside the framework's resolve hooks when those are
 * registered (src/modules/import-module.ts), so a worker that loads no JavaScript starts no hooks
 * thread. Reads under `exclude` (the framework's own files, the transpile cache) are not recorded.
 *
 * Installed once, before the framework is imported: it replaces functions of `node:fs` and
 * `node:module` for the whole thread, which is the daemon's and holds nothing but one runtime.
 */
export function installReadRecorder(exclude: readonly string[]): ReadRecorder {
  const storage = new AsyncLocalStorage<Recording>();
  let current: Recording | undefined;
  const active = () => {
    const recording = storage.getStore();
    return recording?.open ? recording : undefined;
  };
  const pathOf = (path: unknown): string | undefined => {
    let text: string;
    if (typeof path === 'string') text = path;
    else if (Buffer.isBuffer(path)) text = path.toString();
    else if (path instanceof URL && path.protocol === 'file:') text = fileURLToPath(path);
    else return undefined;
    const absolute = resolve(text);
    const skipped = exclude.some((dir) => absolute === dir || absolute.startsWith(dir + sep));
    return skipped ? undefined : absolute;
  };
  const add = (recording: Recording, record: ReadRecord) => {
    if (recording.open) recording.records.push(record);
  };
  patchFs(active, pathOf, add);
  const loads = patchRegister((record) => {
    const path = current?.open ? pathOf(record.path) : undefined;
    if (current && path !== undefined) add(current, { ...record, path });
  });
  syncBuiltinESMExports();

  return {
    async record<T>(work: () => Promise<T>): Promise<Recorded<T>> {
      const recording: Recording = { records: [], open: true };
      current = recording;
      let outcome: Recorded<T>['outcome'];
      try {
        outcome = { ok: true, value: await storage.run(recording, work) };
      } catch (error) {
        outcome = { ok: false, error };
      }
      await loads.settled();
      recording.open = false;
      current = undefined;
      return { records: recording.records, outcome };
    },
  };
}

type Active = () => Recording | undefined;
type PathOf = (path: unknown) => string | undefined;
type Add = (recording: Recording, record: ReadRecord) => void;
// biome-ignore lint/suspicious/noExplicitAny: the replaced functions take what fs's own take.
type Fn = (...args: any[]) => any;

/** The bytes a read gave, as a record: the stamp taken before it, the digest of what came back. */
function readRecord(path: string, stamp: string, data: unknown, options: unknown): ReadRecord {
  if (typeof data !== 'string' && !Buffer.isBuffer(data))
    return { how: 'open', path, value: stamp };
  const encoding = (
    typeof options === 'string'
      ? options
      : (options as { encoding?: string } | null | undefined)?.encoding
  ) as BufferEncoding | undefined;
  return {
    how: 'read',
    path,
    value: stamp,
    digest: digestOf(Buffer.isBuffer(data) ? data : Buffer.from(data, encoding ?? 'utf8')),
    ...(typeof data === 'string' ? { encoding: encoding ?? 'utf8' } : {}),
  };
}

const READ_ONLY = new Set([undefined, 'r', 'rs', 'sr', fs.constants.O_RDONLY]);

/**
 * Each `node:fs` function loading uses to look at a path, in its sync, callback and promise
 * forms: `before` stamps what must be stamped before the call, `after` records from its result.
 */
function patchFs(active: Active, pathOf: PathOf, add: Add): void {
  type Look = {
    before?: (path: string, args: unknown[]) => string | undefined;
    after: (
      path: string,
      before: string | undefined,
      args: unknown[],
      result: unknown,
    ) => ReadRecord;
    /** Whether the call is one to record at all (a read-only open). */
    when?: (args: unknown[]) => boolean;
  };
  const failed = (path: string): ReadRecord => ({
    how: 'stat',
    path,
    value: observe('stat', path),
  });
  const looks: Record<string, Look> = {
    readFile: {
      before: (path) => observe('read', path),
      after: (path, stamp, args, data) => readRecord(path, stamp as string, data, args[1]),
    },
    readdir: {
      before: (path, args) => (isRecursive(args[1]) ? observe('list-r', path) : undefined),
      after: (path, listed, args, names) =>
        isRecursive(args[1])
          ? { how: 'list-r', path, value: listed as string }
          : { how: 'list', path, value: listingOf(names as string[]) },
    },
    // What the call found, not a second look: `throwIfNoEntry: false` gives undefined.
    stat: { after: (path, _, __, stats) => ({ how: 'stat', path, value: kindOf(stats as Stats) }) },
    lstat: {
      after: (path, _, __, stats) => ({ how: 'lstat', path, value: kindOf(stats as Stats) }),
    },
    access: { after: (path) => ({ how: 'exists', path, value: 'yes' }) },
    open: {
      when: (args) =>
        READ_ONLY.has(typeof args[1] === 'function' ? undefined : (args[1] as string | number)),
      before: (path) => observe('open', path),
      after: (path, stamp) => ({ how: 'open', path, value: stamp as string }),
    },
  };
  const target = fs as unknown as Record<string, Fn>;
  const promises = fs.promises as unknown as Record<string, Fn>;
  for (const [name, look] of Object.entries(looks)) {
    const start = (args: unknown[]) => {
      const recording = active();
      const path = recording && (look.when?.(args) ?? true) ? pathOf(args[0]) : undefined;
      if (recording === undefined || path === undefined) return undefined;
      const before = look.before?.(path, args);
      const done = (error: unknown, result?: unknown) =>
        add(recording, error ? failed(path) : look.after(path, before, args, result));
      return done;
    };
    replace(
      target,
      `${name}Sync`,
      (original) =>
        function (this: unknown, ...args: unknown[]) {
          const done = start(args);
          if (done === undefined) return original.apply(this, args);
          try {
            const result = original.apply(this, args);
            done(undefined, result);
            return result;
          } catch (error) {
            done(error);
            throw error;
          }
        },
    );
    replace(
      target,
      name,
      (original) =>
        function (this: unknown, ...args: unknown[]) {
          const callback = args.at(-1);
          const done = typeof callback === 'function' ? start(args) : undefined;
          if (done === undefined) return original.apply(this, args);
          return original.apply(this, [
            ...args.slice(0, -1),
            (error: unknown, result: unknown) => {
              done(error, result);
              (callback as Fn)(error, result);
            },
          ]);
        },
    );
    replace(
      promises,
      name,
      (original) =>
        async function (this: unknown, ...args: unknown[]) {
          const done = start(args);
          if (done === undefined) return original.apply(this, args);
          try {
            const result = await original.apply(this, args);
            done(undefined, result);
            return result;
          } catch (error) {
            done(error);
            throw error;
          }
        },
    );
  }
  // Whether a path exists: the one look without a callback or promise form.
  replace(
    target,
    'existsSync',
    (original) =>
      function (this: unknown, ...args: unknown[]) {
        const result = original.apply(this, args);
        const recording = active();
        const path = recording && pathOf(args[0]);
        if (recording && path !== undefined)
          add(recording, { how: 'exists', path, value: result ? 'yes' : 'no' });
        return result;
      },
  );
}

function isRecursive(options: unknown): boolean {
  return (options as { recursive?: unknown } | null | undefined)?.recursive === true;
}

function replace(target: Record<string, Fn>, name: string, make: (original: Fn) => Fn): void {
  const original = target[name];
  if (typeof original === 'function') target[name] = make(original);
}

/**
 * `module.register`, so that the first registration of module hooks in the thread registers the
 * load hook of loader/record-loads.mjs with it. What it reports arrives on a port; `settled`
 * waits until everything it reported so far has arrived.
 */
function patchRegister(onLoad: (record: ReadRecord) => void): { settled(): Promise<void> } {
  const nodeModule = createRequire(import.meta.url)('node:module') as Record<string, Fn>;
  const original = nodeModule.register as Fn;
  const hooks = pathToFileURL(resolve(PACKAGE_ROOT, 'loader', 'record-loads.mjs')).href;
  let port: MessagePort | undefined;
  const waiting = new Map<number, () => void>();
  let asked = 0;
  nodeModule.register = function (this: unknown, ...args: unknown[]) {
    if (port === undefined) {
      const channel = new MessageChannel();
      port = channel.port1;
      port.on('message', (message: ReadRecord | { settled: number }) => {
        if ('settled' in message) waiting.get(message.settled)?.();
        else onLoad(message);
      });
      port.unref();
      original.call(this, hooks, {
        data: { port: channel.port2 },
        transferList: [channel.port2],
      });
    }
    return original.apply(this, args);
  };
  return {
    settled() {
      const open = port;
      if (open === undefined) return Promise.resolve();
      const id = ++asked;
      open.ref();
      return new Promise<void>((done) => {
        waiting.set(id, () => {
          waiting.delete(id);
          if (waiting.size === 0) open.unref();
          done();
        });
        open.postMessage({ settled: id });
      });
    },
  };
}
