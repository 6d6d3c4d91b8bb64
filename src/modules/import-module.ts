import { createRequire, register } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Jiti, JitiOptions, TransformOptions, TransformResult } from 'jiti';
import { PACKAGE_ROOT } from '../package-root.js';
import { frameworkNamespaces, frameworkUrls } from './framework-modules.js';
import { extensionlessImports, RESOLVE_ORDER } from './jiti-imports.js';
import { type LoadPass, type ModuleGraphs, moduleGraphs } from './module-graphs.js';
import { nativeImport } from './native-import.js';
import { importProjectModule } from './project-code/load-bundle.js';
import { loadGuarded, type ReadGuard } from './read-guard.js';

const TYPESCRIPT = /\.[cm]?ts$/;

/** Loads extension and config modules. */
export interface ModuleLoader {
  /**
   * The module's namespace. TypeScript goes through jiti, whose disk cache lets a warm start
   * skip the transpiler (enums and other non-erasable syntax work on Node 20); JavaScript through
   * native `import()`. Both see `hermes-extensions` and `zod` as the running framework's copies.
   *
   * With a `guard` (project code: a project extension, a project code config, a `paths` entry
   * of the project config), neither: the module runs from its bundle (project-code/), made from
   * the files the guard allows, each read once and checked; Node never resolves or reads a
   * project file itself. Reads the module makes with `fs.readFileSync` while it is evaluated are
   * checked against the record too (read-guard.ts).
   */
  import(file: string, guard?: ReadGuard): Promise<Record<string, unknown>>;
}

const jitis = new Map<string, Promise<Jiti>>();
let graphs: Promise<ModuleGraphs> | undefined;

/**
 * A loader whose jiti cache lives in `cacheDir` (`$HERMES_HOME/cache/jiti`) and project bundles
 * in `bundleDir` (`$HERMES_HOME/cache/bundles`): folders the framework owns, not the shared temp folder that cleaners empty and other users may own. One per
 * load of a runtime (the jiti instance is kept for the process): JavaScript entries that changed
 * since they were last loaded are re-read together, with their imports (module-graphs.ts).
 */
export function moduleLoader(cacheDir: string, bundleDir: string): ModuleLoader {
  const jiti = () => {
    let loaded = jitis.get(cacheDir);
    if (loaded === undefined) {
      loaded = createJitiLoader(cacheDir);
      jitis.set(cacheDir, loaded);
    }
    return loaded;
  };
  const pass: LoadPass = {};
  return {
    async import(file, guard) {
      if (guard) {
        const options = { root: guard.root, allowed: guard.allowed, cacheDir: bundleDir };
        // Bundling checks each file it reads itself; the guard then watches what the module
        // reads while it runs.
        return importProjectModule(file, options, (run) => loadGuarded(guard, run));
      }
      if (TYPESCRIPT.test(file)) {
        return (await (await jiti()).import(file)) as Record<string, unknown>;
      }
      const modules = await registerResolveHooks();
      const url = modules.urlFor(file, pass);
      const module = (await nativeImport(url)) as Record<string, unknown>;
      await modules.loaded(file, url);
      return module;
    },
  };
}

/** What jiti's own work runs through (`requireJitiThrough`); by default, as it is. */
let jitiWork = <T>(work: () => T): T => work();

/**
 * How jiti's package is required, once, when the first TypeScript file loads: `require`, not
 * `import()`: importing jiti's CommonJS build from ESM makes Node scan all of it for export names
 * first (cjs-module-lexer), about 19 ms of a warm start.
 */
const requireJiti = (): typeof import('jiti') =>
  jitiWork(() => createRequire(import.meta.url)('jiti'));

/**
 * jiti's TypeScript transform (its Babel build, `dist/babel.cjs`, what jiti itself requires when
 * given none), required at the first file its disk cache does not hold, and run through
 * `jitiWork`. Babel lists the environment's names as it loads (the `debug` package) and reads
 * `BABEL_ENV` and `NODE_ENV` at each transform; what it makes of a source depends on neither.
 */
let babel: ((options: TransformOptions) => TransformResult) | undefined;
const transform = (options: TransformOptions): TransformResult =>
  jitiWork(() => {
    babel ??= createRequire(import.meta.url)(
      join(dirname(createRequire(import.meta.url).resolve('jiti')), '..', 'dist', 'babel.cjs'),
    ) as (options: TransformOptions) => TransformResult;
    return babel(options);
  });

/**
 * Has jiti's package required, and its transform run, through `wrap`: a hook daemon's runtime
 * thread leaves what jiti and Babel read of the environment as they load (the CI, agent and
 * terminal it runs in, PATH, every variable's name) out of what the runtime depends on
 * (worker-events.ts), and loads them only for a runtime that needs them.
 */
export function requireJitiThrough(wrap: <T>(work: () => T) => T): void {
  jitiWork = wrap;
}

async function createJitiLoader(cacheDir: string): Promise<Jiti> {
  const { createJiti } = requireJiti();
  const virtualModules = await frameworkNamespaces();
  return createJiti(import.meta.url, {
    ...jitiPinned(),
    fsCache: cacheDir,
    virtualModules,
    transform,
  });
}

/**
 * Every option jiti would otherwise take from a `JITI_*` variable, given here: a hook's
 * environment is the agent's, which a cloned repository can set (an agent's project settings name
 * variables for its hooks). `JITI_ALIAS` would send a guard's own imports to the project's files,
 * `JITI_ESM_EVAL_TEMP_FILE` would have the code run from a file in the shared temp folder,
 * `JITI_EXTENSIONS` and `JITI_TSCONFIG_PATHS` would change what an import finds
 * (test/modules/jiti-environment.test.ts). The values are jiti's own defaults, but for the
 * caches, the native attempt and how relative imports are found (jiti-imports.ts).
 */
const jitiPinned = (): JitiOptions => ({
  // Every load reads the files again: an edited extension is picked up by the next runtime.
  // The disk cache cannot stand in for a source either: jiti reads the source first and uses a
  // cached transform only when it was made from those same bytes.
  moduleCache: false,
  rebuildFsCache: false,
  // A native attempt would read past the guard.
  tryNative: false,
  nativeModules: [],
  transformModules: [],
  alias: {},
  // Relative imports written for TypeScript (`./helper.js`) found at the second look (jiti-imports.ts).
  extensions: [...RESOLVE_ORDER],
  transformOptions: { babel: { plugins: [extensionlessImports] } },
  tsconfigPaths: false,
  esmEvalTempFile: false,
  interopDefault: true,
  jsx: false,
  sourceMaps: false,
  debug: false,
});

function registerResolveHooks(): Promise<ModuleGraphs> {
  graphs ??= frameworkUrls().then((urls) => {
    const created = moduleGraphs();
    register(pathToFileURL(join(PACKAGE_ROOT, 'loader', 'resolve-hooks.mjs')), {
      data: { ...urls, graphs: created.hooksPort },
      transferList: [created.hooksPort],
    });
    return created;
  });
  return graphs;
}
