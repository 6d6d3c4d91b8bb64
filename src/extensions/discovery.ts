import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { expandHome, isDir, isFile } from '../config/locations.js';
import type { PathEntry } from '../config/merge.js';
import { didYouMean } from '../config/suggest.js';
import { DISK, type FileView } from '../fs/file-view.js';
import { byName } from './order.js';
import { isShippedSpec, SHIPPED_PACKAGE, shippedExtension, shippedNames } from './shipped.js';
import type { Diagnostic, ExtensionSource } from './types.js';

/** An extension found on disk, not loaded yet. */
export interface DiscoveredExtension {
  /** Its name until loading tells the real one: the folder or file name. */
  label: string;
  /** The module to import. */
  entry: string;
  /** The folder (or single file) shown as the extension's `path`. */
  location: string;
  source: ExtensionSource;
  /** Named by the project's config: project code, loaded only as its trust allows. */
  fromProject?: boolean;
  /** A shipped extension compiled into the running program: its module, without a module loader. */
  compiled?: () => Promise<Record<string, unknown>>;
}

export interface Discovery {
  found: DiscoveredExtension[];
  problems: Diagnostic[];
}

const ENTRY_FILES = ['index.ts', 'index.mts', 'index.js', 'index.mjs'];
const SINGLE_FILE = /^(?!.*\.d\.[cm]?ts$)(?!.*\.(?:test|spec)\.[cm]?[jt]s$)(.+)\.(?:m?ts|m?js)$/;

/** Every extension in a folder: each sub-folder with an entry, and each `NAME.ts|js|mts|mjs`. */
export function discoverIn(dir: string, source: ExtensionSource, view: FileView = DISK): Discovery {
  const found: DiscoveredExtension[] = [];
  const problems: Diagnostic[] = [];
  if (!view.isDir(dir)) return { found, problems };
  const entries = view
    .list(dir)
    .map((name) => ({ name }))
    .sort(byName);
  for (const item of entries) {
    if (item.name.startsWith('.') || item.name === 'node_modules') continue;
    const path = join(dir, item.name);
    // A folder, or a link to one (isDir follows links).
    if (view.isDir(path)) {
      const { entry, problem } = directoryEntry(path, view);
      if (entry) found.push({ label: item.name, entry, location: path, source });
      else problems.push(problem ?? noEntry(path));
      continue;
    }
    const single = SINGLE_FILE.exec(item.name);
    if (single && view.isFile(path)) {
      found.push({ label: single[1] as string, entry: path, location: path, source });
    }
  }
  return { found, problems };
}

/** What one `extensions.paths` entry names: a file, an extension folder, a folder of them, or a package. */
export function discoverPath({ spec, base, file }: PathEntry, view: FileView = DISK): Discovery {
  // The package's own name space is never looked up on disk (shipped.ts says why).
  if (isShippedSpec(spec)) return discoverShipped(spec, base, file);
  // A bare name is a package unless a file or folder of that name sits next to the config.
  if (
    isPackageName(spec) &&
    !view.isFile(resolve(base, spec)) &&
    !view.isDir(resolve(base, spec))
  ) {
    const dir = findPackage(spec, base, view);
    const { entry, problem } = dir ? directoryEntry(dir, view) : {};
    if (dir && entry) {
      return { found: [{ label: spec, entry, location: dir, source: 'package' }], problems: [] };
    }
    if (problem) return { found: [], problems: [problem] };
    const missing: Diagnostic = dir
      ? {
          code: 'NO_ENTRY',
          severity: 'error',
          file,
          message: `package "${spec}" (${dir}) has no entry: set "exports" or "main" in its package.json`,
        }
      : {
          code: 'PATH_NOT_FOUND',
          severity: 'error',
          file,
          message: `extensions.paths names package "${spec}", which is not installed where ${file} can see it`,
        };
    return { found: [], problems: [missing] };
  }
  const path = resolve(base, expandHome(spec));
  if (view.isFile(path)) {
    const label = SINGLE_FILE.exec(basename(path))?.[1] ?? basename(path);
    return { found: [{ label, entry: path, location: path, source: 'path' }], problems: [] };
  }
  if (view.isDir(path)) {
    const { entry, problem } = directoryEntry(path, view);
    if (entry) {
      return {
        found: [{ label: basename(path), entry, location: path, source: 'path' }],
        problems: [],
      };
    }
    if (problem) return { found: [], problems: [problem] };
    return discoverIn(path, 'path', view);
  }
  const message = `extensions.paths entry "${spec}" (${path}) does not exist`;
  return { found: [], problems: [{ code: 'PATH_NOT_FOUND', severity: 'error', file, message }] };
}

/**
 * `hermes-extensions/<name>`: the running framework's shipped extension of that name, or an error
 * that lists the names there are.
 */
function discoverShipped(spec: string, base: string, file: string): Discovery {
  const found = shippedExtension(spec);
  if (found) {
    const label = spec.slice(SHIPPED_PACKAGE.length + 1);
    return { found: [{ label, ...found, source: 'shipped' }], problems: [] };
  }
  const shipped = shippedNames();
  const named = spec.slice(SHIPPED_PACKAGE.length + 1);
  const guess = named === '' ? undefined : didYouMean(named, shipped);
  const entry = `extensions.paths entry "${spec}"${file ? ` in ${file}` : ''}`;
  let message = [
    spec === SHIPPED_PACKAGE
      ? `${entry} names the framework itself, not an extension.`
      : `${entry} names no extension shipped with hermes-extensions${guess ? `; did you mean "${SHIPPED_PACKAGE}/${guess}"?` : '.'}`,
    ` The shipped ones are: ${shipped.map((name) => `${SHIPPED_PACKAGE}/${name}`).join(', ')}.`,
  ].join('');
  const beside = resolve(base, spec);
  if (isDir(beside) || isFile(beside)) {
    message += ` To name ${beside} instead, write "./${spec}".`;
  }
  return { found: [], problems: [{ code: 'PATH_NOT_FOUND', severity: 'error', file, message }] };
}

/**
 * A folder's entry module: its package.json `exports`/`main`, else `index.ts|mts|js|mjs`. An
 * entry whose real path is outside the folder (`"main": "../../x.js"`, an index that is a link
 * out) is refused, whatever the source, a global one too: what is installed, reviewed or trusted
 * as the extension is its folder, and an entry elsewhere runs code nobody looked at there.
 */
function directoryEntry(dir: string, view: FileView): { entry?: string; problem?: Diagnostic } {
  const manifestFile = join(dir, 'package.json');
  const manifest = readManifest(manifestFile, view);
  const declared = manifest && packageEntry(manifest);
  const candidates = [
    ...(declared
      ? [{ file: resolve(dir, declared), named: `package.json entry "${declared}"` }]
      : []),
    ...ENTRY_FILES.map((name) => ({ file: join(dir, name), named: name })),
  ];
  for (const { file, named } of candidates) {
    if (!view.isFile(file)) continue;
    if (!isWithin(dir, file, view)) {
      const message = `extension ${dir}: its ${named} leads outside the extension's folder (to ${view.real(file)}); refused. Move the code into the folder.`;
      const at = declared ? manifestFile : file;
      return { problem: { code: 'ENTRY_OUTSIDE_FOLDER', severity: 'error', file: at, message } };
    }
    return { entry: file };
  }
  return {};
}

function isWithin(dir: string, file: string, view: FileView): boolean {
  const rel = relative(view.real(dir), view.real(file));
  return rel !== '' && rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel);
}

function packageEntry(manifest: Record<string, unknown>): string | undefined {
  const pick = (value: unknown): string | undefined => {
    if (typeof value === 'string') return value;
    if (value === null || typeof value !== 'object') return undefined;
    const conditions = value as Record<string, unknown>;
    return pick(conditions['.'] ?? conditions.import ?? conditions.default ?? conditions.node);
  };
  return pick(manifest.exports) ?? (typeof manifest.main === 'string' ? manifest.main : undefined);
}

function readManifest(file: string, view: FileView): Record<string, unknown> | undefined {
  try {
    return JSON.parse(view.read(file)) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

function isPackageName(spec: string): boolean {
  return (
    !spec.startsWith('.') &&
    !spec.startsWith('~') &&
    !isAbsolute(spec) &&
    /^(@[\w.-]+\/)?[\w.-]+$/.test(spec)
  );
}

/** The installed package's folder, looked up through `node_modules` folders as Node would. */
function findPackage(name: string, from: string, view: FileView): string | undefined {
  let dir = from;
  for (;;) {
    const candidate = join(dir, 'node_modules', name);
    if (view.isDir(candidate)) return candidate;
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

function noEntry(dir: string): Diagnostic {
  return {
    code: 'NO_ENTRY',
    severity: 'warning',
    file: dir,
    message: `folder ${dir} has no extension entry (index.ts, index.mts, index.js, index.mjs, or package.json "exports"/"main"); skipped`,
  };
}
