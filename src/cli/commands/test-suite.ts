import { readdirSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { hermesCommand } from '../../command-name.js';
import type { ExtensionInfo } from '../../extensions/types.js';
import { insideRelative } from '../../fs/paths.js';
import { nativeImport } from '../../modules/native-import.js';
import { PACKAGE_ROOT } from '../../package-root.js';
import { type CommandContext, loadForCommand } from '../context.js';
import { CliError, type Io } from '../io.js';
import {
  installVitestAdvice,
  projectOfFramework,
  vitestBesideFramework,
} from '../vitest-beside.js';

/** The files vitest runs by default: `*.test.ts`, `*.spec.mjs`, … */
const TEST_FILE = /\.(?:test|spec)\.[cm]?[jt]sx?$/;

/**
 * `hermes extensions test-suite [NAME]`: an extension's own tests (those `init` scaffolds),
 * run with vitest where the extension lives, with nothing installed beside it:
 * `hermes-extensions` (each entry point), `zod` and `vitest` resolve to the copies next to the
 * running framework. Without NAME, the tests of every extension that has some. Exit 1 when a
 * test fails.
 */
export async function testSuiteCommand(
  context: CommandContext,
  name: string | undefined,
  io: Io,
): Promise<number> {
  const suites = await suitesFor(context, name);
  if (suites.length === 0) {
    throw new CliError(
      name === undefined
        ? `no extension has test files (*.test.ts beside its index.ts, as \`${hermesCommand()} extensions init\` makes)`
        : `extension "${name}" has no test files (*.test.ts beside its entry)`,
      2,
    );
  }
  // vitest colours by its own rules; the command line's are to colour only on a terminal.
  if (!io.color) process.env.NO_COLOR = '1';
  const vitest = await importVitest();
  let failed = false;
  for (const suite of suites) {
    io.out(`${suite.name} (${suite.dir})`);
    const before = process.exitCode;
    process.exitCode = 0;
    const run = await vitest.startVitest(
      'test',
      suite.files,
      { root: suite.dir, config: false, run: true, watch: false, passWithNoTests: false },
      {
        plugins: [frameworkResolution()],
        // Vite would keep its cache in the extension's folder (node_modules/.vite).
        cacheDir: join(context.home, 'cache', 'vitest'),
      },
    );
    failed ||= process.exitCode !== 0 || run.state.getCountOfFailedTests() > 0;
    process.exitCode = before;
  }
  return failed ? 1 : 0;
}

interface Suite {
  name: string;
  dir: string;
  /** The test files; for a one-file extension (`NAME.ts`), only `NAME.test.ts` and the like. */
  files: string[];
}

/**
 * The extensions as the agent loads them here, so a project's tests run only when its code
 * may run (a trusted project): a test file imports the extension, which runs its code.
 */
async function suitesFor(context: CommandContext, name: string | undefined): Promise<Suite[]> {
  const { runtime } = await loadForCommand(context);
  await runtime.close();
  const chosen = runtime.extensions.filter(
    (ext) => ext.status !== 'shadowed' && (name === undefined || ext.name === name),
  );
  if (name !== undefined && chosen.length === 0) {
    throw new CliError(
      `no extension named "${name}" (${hermesCommand()} extensions list shows what was found)`,
      2,
    );
  }
  // Changed since it was trusted: the runtime runs the trusted bundles, but a test file would
  // import the files as they are now, which nobody reviewed.
  const held = runtime.diagnostics.some((d) => d.code === 'TRUST_HELD');
  const suites: Suite[] = [];
  for (const ext of chosen) {
    const changed =
      held && ext.path !== undefined && insideRelative(runtime.projectRoot, ext.path) !== undefined;
    if (ext.status === 'untrusted' || changed) {
      if (name === undefined) continue;
      throw new CliError(
        `"${name}" is project code and the project is not trusted${changed ? ' as it is now (it changed since it was trusted)' : ''}; its tests would run it. Review it, then run: ${hermesCommand()} extensions trust`,
        2,
      );
    }
    const suite = suiteOf(ext);
    if (suite !== undefined) suites.push(suite);
  }
  return suites;
}

function suiteOf(ext: ExtensionInfo): Suite | undefined {
  if (ext.path === undefined) return undefined;
  const single = /\.[cm]?[jt]s$/.test(ext.path);
  const dir = single ? dirname(ext.path) : ext.path;
  const stem = single ? basename(ext.path).replace(/\.[cm]?[jt]s$/, '') : undefined;
  const files = testFiles(dir, stem === undefined).filter(
    (file) => stem === undefined || basename(file).startsWith(`${stem}.`),
  );
  return files.length === 0 ? undefined : { name: ext.name, dir, files };
}

function testFiles(dir: string, deep: boolean): string[] {
  const found: string[] = [];
  for (const item of readdirSync(dir, { withFileTypes: true })) {
    if (item.name.startsWith('.') || item.name === 'node_modules') continue;
    const path = join(dir, item.name);
    if (item.isDirectory() && deep) found.push(...testFiles(path, deep));
    else if (item.isFile() && TEST_FILE.test(item.name)) found.push(path);
  }
  return found.sort();
}

type VitestNode = typeof import('vitest/node');

/**
 * vitest as installed beside the framework: its own dependencies (a checkout), or a sibling
 * package (`npm install -g vitest` next to a global install, a project's devDependency).
 */
async function importVitest(): Promise<VitestNode> {
  const file = vitestBesideFramework();
  if (file === undefined) {
    const project = projectOfFramework();
    throw new CliError(
      `test-suite runs the tests with vitest, which is not installed next to hermes-extensions (${PACKAGE_ROOT}). Install it where the framework is${project === undefined ? '' : `, in ${project}`}: ${installVitestAdvice()}`,
      2,
    );
  }
  // vitest is an ES module: Node's own `import()`, which the command line's bundle, a script,
  // would make a `require` (scripts/bundle-cli.mjs).
  return (await nativeImport(pathToFileURL(file).href)) as VitestNode;
}

type ViteOverrides = NonNullable<Parameters<VitestNode['startVitest']>[3]>;
type VitePlugin = Extract<NonNullable<ViteOverrides['plugins']>[number], { name: string }>;

/** `hermes-extensions` with any subpath, `zod` with any subpath (`zod/v4`), and `vitest` itself. */
const FRAMEWORK_SPECIFIER = /^(?:(?:hermes-extensions|zod)(?:\/.*)?|vitest)$/;

/**
 * Resolves the framework's specifiers, wherever a test imports them, as the framework's own
 * modules import them: from the package root, so `hermes-extensions` is the package's reference
 * to itself (its `exports`) and `zod` and `vitest` are the copies it depends on, by the same
 * `import` conditions. A test then shares the framework's zod, module for module — not the
 * CommonJS build a package folder's `main` names — and never reaches a copy the project
 * installed itself. Any other specifier, relative ones included, resolves from the test's file.
 */
function frameworkResolution(): VitePlugin {
  const importer = join(PACKAGE_ROOT, 'package.json');
  return {
    name: 'hermes-extensions:framework-resolution',
    enforce: 'pre',
    async resolveId(source, _importer, options) {
      if (!FRAMEWORK_SPECIFIER.test(source)) return null;
      const resolved = await this.resolve(source, importer, { ...options, skipSelf: true });
      if (resolved === null)
        this.error(`${source} is not found beside hermes-extensions (${PACKAGE_ROOT})`);
      return resolved;
    },
  };
}
