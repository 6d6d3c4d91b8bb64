import { AsyncLocalStorage } from 'node:async_hooks';
import fs, { realpathSync } from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { hermesCommand } from '../command-name.js';
import { sha256 } from '../fs/digest.js';
import { insideRelative } from '../fs/paths.js';

/**
 * What a project load may read inside the project: the files recorded when the project was
 * trusted, each with its digest. `undefined` allows every file (trust given for one run).
 */
export interface ReadGuard {
  root: string;
  allowed: ReadonlyMap<string, string> | undefined;
  /** Folders whose files the framework itself reads while loading (jiti's own code, its cache). */
  exempt: readonly string[];
}

/** Refusals collected during one load: a refusal a loader catches and ignores still fails it. */
interface GuardContext {
  guard: ReadGuard;
  realRoot: string;
  refusals: string[];
}

const storage = new AsyncLocalStorage<GuardContext>();
let users = 0;
let originalRead: typeof fs.readFileSync | undefined;
let originalDlopen: typeof process.dlopen | undefined;

/**
 * Runs `load` (the import of a project extension or config) so that every file it reads inside
 * the project through `fs.readFileSync` — how jiti reads each module's source, and how Node reads
 * a required JSON file — is checked, on the bytes actually read, against what was trusted; and a
 * native addon inside the project cannot be opened at all (its bytes are not readable first).
 * Reads by other work in the process at the same time are not in this async context and pass.
 * Throws the first refusal, even when the loader caught it (jiti ignores unreadable package.json).
 */
export async function loadGuarded<T>(guard: ReadGuard, load: () => Promise<T>): Promise<T> {
  const context: GuardContext = { guard, realRoot: realRootOf(guard.root), refusals: [] };
  install();
  try {
    const result = await storage.run(context, load);
    if (context.refusals.length > 0) throw new Error(context.refusals[0]);
    return result;
  } catch (error) {
    if (context.refusals.length > 0) throw new Error(context.refusals[0]);
    throw error;
  } finally {
    uninstall();
  }
}

function install(): void {
  users += 1;
  if (users > 1) return;
  originalRead = fs.readFileSync;
  originalDlopen = process.dlopen;
  fs.readFileSync = guardedRead as typeof fs.readFileSync;
  process.dlopen = guardedDlopen as typeof process.dlopen;
  // ES module imports of `node:fs` get a copy of its functions: refresh them so that code doing
  // `import { readFileSync } from 'node:fs'` while it loads reads through the guard too.
  syncBuiltinESMExports();
}

function uninstall(): void {
  users -= 1;
  if (users > 0) return;
  // Put back only what is still ours: something patched on top of it keeps its patch.
  if (fs.readFileSync === guardedRead && originalRead) fs.readFileSync = originalRead;
  if (process.dlopen === guardedDlopen && originalDlopen) process.dlopen = originalDlopen;
  syncBuiltinESMExports();
}

function guardedRead(this: unknown, path: unknown, options?: unknown): unknown {
  const read = originalRead as (...args: unknown[]) => unknown;
  const context = storage.getStore();
  if (context === undefined || context.guard.allowed === undefined) {
    return read.call(fs, path, options);
  }
  const rel = checkedPath(context, path);
  if (rel === undefined) return read.call(fs, path, options);
  // The bytes, undecoded, so the digest is of exactly what the caller gets.
  const flag =
    options !== null && typeof options === 'object'
      ? (options as { flag?: string }).flag
      : undefined;
  const bytes = read.call(fs, path, flag ? { flag } : undefined) as Buffer;
  const trusted = context.guard.allowed.get(rel);
  if (trusted === undefined) {
    refuse(
      context,
      `reads ${rel}, which is not part of what was trusted; review it and run \`${hermesCommand()} extensions trust\``,
    );
  } else if (trusted !== sha256(bytes)) {
    refuse(
      context,
      `reads ${rel}, which changed since the project was trusted; review it and run \`${hermesCommand()} extensions trust\``,
    );
  }
  const encoding =
    typeof options === 'string'
      ? options
      : (options as { encoding?: string } | undefined)?.encoding;
  return encoding ? bytes.toString(encoding as BufferEncoding) : bytes;
}

function guardedDlopen(
  this: unknown,
  module: unknown,
  filename: string,
  ...rest: unknown[]
): unknown {
  const context = storage.getStore();
  if (context?.guard.allowed !== undefined && checkedPath(context, filename) !== undefined) {
    refuse(
      context,
      `opens native addon ${filename}, which cannot be checked against what was trusted`,
    );
  }
  return (originalDlopen as (...args: unknown[]) => unknown).call(
    process,
    module,
    filename,
    ...rest,
  );
}

/** The path relative to the root when the read is one to check; undefined for reads outside. */
function checkedPath(context: GuardContext, path: unknown): string | undefined {
  let absolute: string;
  if (typeof path === 'string') absolute = resolve(path);
  else if (path instanceof URL) absolute = fileURLToPath(path);
  else if (Buffer.isBuffer(path)) absolute = resolve(path.toString());
  else {
    refuse(context, 'reads a file by descriptor, which cannot be checked against what was trusted');
    return undefined;
  }
  const lexical =
    insideRelative(context.guard.root, absolute) ?? insideRelative(context.realRoot, absolute);
  let real: string;
  try {
    real = realpathSync(absolute);
  } catch {
    return undefined; // missing: the read itself fails
  }
  if (context.guard.exempt.some((folder) => insideRelative(folder, real) !== undefined)) {
    return undefined;
  }
  const rel = insideRelative(context.realRoot, real);
  if (rel === undefined && lexical !== undefined) {
    refuse(context, `reads ${lexical}, a link that leads outside the project (to ${real})`);
  }
  return rel;
}

function refuse(context: GuardContext, message: string): never {
  context.refusals.push(message);
  throw new Error(message);
}

function realRootOf(root: string): string {
  try {
    return realpathSync(root);
  } catch {
    return root;
  }
}

/** The folders the framework reads from while loading: jiti's code (its Babel), and `home`. */
export function frameworkReadFolders(home: string, jitiEntry: string): string[] {
  return [realRootOf(dirname(dirname(jitiEntry))), realRootOf(home)];
}
