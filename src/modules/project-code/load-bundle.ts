import { nativeImport } from '../native-import.js';
import { frameworkOf } from './bundle-format.js';
import { frameworkNamespace } from './framework.js';
import { keepBundle, keptBundle } from './kept-bundles.js';
import { installRegistry } from './registry.js';
import { usableRolldown } from './rolldown-peer.js';

export interface ProjectModuleOptions {
  /** The project root. */
  root: string;
  /** What the project's trust covers (path → digest); undefined when trusted for one run. */
  allowed: ReadonlyMap<string, string> | undefined;
  /** Where bundles made from a trust record are kept (`$HERMES_HOME/cache/bundles`). */
  cacheDir: string;
}

/**
 * The namespace of the project module `entry`, evaluated from its bundle (bundle.ts). Bundling
 * reads every file once and checks it against the record; what runs is those bytes. A bundle is
 * kept under `cacheDir` with the list of files and digests it was made from (kept-bundles.ts): a
 * later load runs it while the record holds each of those files with the same digest — an edit
 * elsewhere in the project (another extension, the config) does not make it again — and bundles
 * anew otherwise. Evaluated from a `data:` URL: no file is read by Node, and the same bundle in
 * one process is one module (as Node keeps any module it loaded by its URL).
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
  const { allowed, cacheDir } = options;
  // Kept bundles are found by rolldown's version too (kept-bundles.ts): without it, or with
  // another version, none is run, and the error says what to install.
  usableRolldown();
  // Trusted for one run: nothing recorded to check a kept bundle against.
  const kept = allowed && keptBundle(cacheDir, entry, allowed);
  if (kept !== undefined) return kept;
  const { bundleProjectModule } = await import('./bundle.js');
  const bundle = await bundleProjectModule(entry, { root: options.root, allowed });
  if (allowed !== undefined) keepBundle(cacheDir, entry, bundle);
  return bundle.code;
}
