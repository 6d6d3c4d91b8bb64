import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { sha256 } from '../../fs/digest.js';
import { PACKAGE_ROOT } from '../../package-root.js';
import { bundlerVersion, frameworkOf } from './bundle-format.js';
import { frameworkNamespace } from './framework.js';
import { installRegistry } from './registry.js';

export interface ProjectModuleOptions {
  /** The project root. */
  root: string;
  /** What the project's trust covers (path → digest); undefined when trusted for one run. */
  allowed: ReadonlyMap<string, string> | undefined;
  /** Where bundles made from a trust record are kept (`$HERMES_HOME/cache/bundles`). */
  cacheDir: string;
}

/**
 * The namespace of the project module `entry`, evaluated from its bundle (bundle.ts): made once
 * per trust record and kept under `cacheDir`, named by the entry, the record's files and digests
 * and the bundler, so a record that changes is a new name and an old bundle is never used for it.
 * Bundling reads every file once and checks it against the record; what runs is those bytes.
 * Evaluated from a `data:` URL: no file is read by Node, and the same bundle in one process is
 * one module (as Node keeps any module it loaded by its URL).
 */
export async function importProjectModule(
  entry: string,
  options: ProjectModuleOptions,
  evaluate: (run: () => Promise<Record<string, unknown>>) => Promise<Record<string, unknown>> = (
    run,
  ) => run(),
): Promise<Record<string, unknown>> {
  const code = await bundleOf(entry, options);
  return evaluate(() => evaluateBundle(code));
}

/** Runs a bundle: its framework modules loaded first, then the bundle from a `data:` URL. */
async function evaluateBundle(code: string): Promise<Record<string, unknown>> {
  installRegistry();
  for (const specifier of frameworkOf(code)) await frameworkNamespace(specifier);
  const url = `data:text/javascript;base64,${Buffer.from(code, 'utf8').toString('base64')}`;
  return (await nativeImport(url)) as Record<string, unknown>;
}

async function bundleOf(entry: string, options: ProjectModuleOptions): Promise<string> {
  const { allowed } = options;
  const make = async () => {
    const { bundleProjectModule } = await import('./bundle.js');
    return (await bundleProjectModule(entry, { root: options.root, allowed })).code;
  };
  // Trusted for one run: nothing recorded to name a bundle by.
  if (allowed === undefined) return make();
  const file = bundleFile(entry, allowed, options.cacheDir);
  try {
    return readFileSync(file, 'utf8');
  } catch {
    // Not made yet for this record.
  }
  const code = await make();
  keep(file, code);
  return code;
}

/**
 * Keeps `code`, made by the review from the bytes `allowed` now records, as the bundle of
 * `entry` for that record: trusting a project makes the bundles its next load runs.
 */
export function keepProjectBundle(
  entry: string,
  allowed: ReadonlyMap<string, string>,
  cacheDir: string,
  code: string,
): void {
  keep(bundleFile(entry, allowed, cacheDir), code);
}

/** Named by the entry, every file and digest of the record, and the bundler. */
function bundleFile(entry: string, allowed: ReadonlyMap<string, string>, cacheDir: string): string {
  const files = [...allowed].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return join(cacheDir, `${sha256(JSON.stringify([bundlerVersion(), entry, files]))}.mjs`);
}

function keep(file: string, code: string): void {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, code, { mode: 0o600 });
  renameSync(temporary, file);
}

/** See loader/native-import.cjs: `require` of it is Node's own, whoever transformed this file. */
const nativeImport = createRequire(import.meta.url)(
  join(PACKAGE_ROOT, 'loader', 'native-import.cjs'),
) as (url: string) => Promise<unknown>;
