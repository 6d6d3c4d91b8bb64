import { readFileSync, realpathSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { extname, relative, sep } from 'node:path';
import { hermesCommand } from '../../command-name.js';
import { sha256 } from '../../fs/digest.js';
import { banner, header } from './bundle-format.js';
import { frameworkNamespace, isFrameworkSpecifier } from './framework.js';
import { rewriteModule } from './rewrite.js';
import { usableRolldown } from './rolldown-peer.js';

/** One file the bundler read, as it read it. */
export interface BundleInput {
  /** Real path. */
  file: string;
  /** Relative to the project root's real path, '/'-separated; `../…` for a file outside it. */
  path: string;
  size: number;
  sha256: string;
}

export interface ProjectBundle {
  /** The module to evaluate: the entry and everything it imports, in one ES module. */
  code: string;
  /** Every file read to make it, each once, with the digest of the bytes that went in. */
  inputs: BundleInput[];
  /** The framework's modules it imports (the running framework's, see framework.ts). */
  framework: string[];
  /** Inputs that import a name computed when they run (only built-ins and the framework load). */
  computedImports: string[];
}

export interface BundleOptions {
  /** The project root: input paths are recorded relative to its real path. */
  root: string;
  /**
   * What may go in, by recorded path and digest (the project's trust record). A file that is not
   * there, or whose bytes differ, fails the bundle: nothing unreviewed is ever compiled, so
   * nothing unreviewed can run. Undefined: any file (trust for one run, or the review itself).
   */
  allowed?: ReadonlyMap<string, string>;
}

const MODULE_TYPES: Record<string, 'js' | 'ts' | 'jsx' | 'tsx' | 'json'> = {
  '.js': 'js',
  '.mjs': 'js',
  '.cjs': 'js',
  '.jsx': 'jsx',
  '.ts': 'ts',
  '.mts': 'ts',
  '.cts': 'ts',
  '.tsx': 'tsx',
  '.json': 'json',
};

const VIRTUAL = '\0hermes-framework:';

/**
 * Bundles the project module `entry` (an extension's entry or a code config) with everything it
 * imports into one ES module, reading each file exactly once and checking those bytes (with
 * `allowed`) before they are compiled. The bundle is what runs, so what was reviewed and what
 * runs cannot differ: Node's resolver never looks for a project file (no `exports` condition,
 * `NODE_OPTIONS`, or file added later can change the choice), and Node's loader never reads one.
 * The framework, zod and ts-pattern come from the running process (framework.ts); Node's built-in
 * modules stay imports. Runs none of the project's code.
 */
export async function bundleProjectModule(
  entry: string,
  options: BundleOptions,
): Promise<ProjectBundle> {
  const realRoot = realpathSync(options.root);
  const inputs = new Map<string, BundleInput>();
  const framework = new Set<string>();
  const computedImports: string[] = [];
  const unresolved: string[] = [];
  // A plugin's throw reaches the caller wrapped in the bundler's summary: keep the first as it was.
  let refused: Error | undefined;
  // Missing, or another version: say what to install rather than Node's "Cannot find package".
  usableRolldown();
  const [{ rolldown }, { parseAst }] = await Promise.all([loadRolldown(), loadParser()]);
  const fail = (error: unknown): never => {
    throw refused ?? bundlerError(error);
  };
  const build = await rolldown({
    input: realpathSync(entry),
    cwd: realRoot,
    // Neutral: the rolldown runtime then calls a `require` in scope (the bundle's restricted one,
    // bundle-format.ts `banner`) instead of making its own from `import.meta.url`. Resolution is
    // Node's, spelled out.
    platform: 'neutral',
    // No tsconfig.json is read: its `paths` would choose files, and it is not among the inputs.
    tsconfig: false,
    resolve: {
      conditionNames: ['module-sync', 'node', 'import', 'require', 'default'],
      mainFields: ['main', 'module'],
      extensions: ['.ts', '.tsx', '.mts', '.cts', '.js', '.jsx', '.mjs', '.cjs', '.json'],
    },
    external: (id) => id.startsWith('node:') || builtinModules.includes(id),
    treeshake: false,
    // An import that resolves to nothing would be left for Node to resolve at run time: an
    // error here instead. Other warnings are about the project's code, not for this load.
    onLog(_level, log) {
      if (log.code === 'UNRESOLVED_IMPORT') unresolved.push(log.message);
    },
    plugins: [
      {
        name: 'hermes-framework',
        async resolveId(source) {
          if (!isFrameworkSpecifier(source)) return null;
          await frameworkNamespace(source);
          framework.add(source);
          return { id: `${VIRTUAL}${source}`, moduleSideEffects: false };
        },
        async load(id) {
          if (id.startsWith(VIRTUAL)) return frameworkModule(id.slice(VIRTUAL.length));
          if (id.startsWith('\0')) return null;
          try {
            const input = readInput(id, realRoot, options.allowed);
            inputs.set(input.file, input.record);
            const type = MODULE_TYPES[extname(id).toLowerCase()];
            if (type === undefined) {
              throw new Error(
                `${input.record.path} cannot be loaded as project code: only JavaScript, TypeScript and JSON modules are (a native addon or another file type cannot be checked against what was trusted)`,
              );
            }
            if (type === 'json') return { code: input.text, moduleType: 'json' };
            const rewritten = rewriteModule(input.text, id, type, parseAst);
            if (rewritten.computedImport) computedImports.push(input.record.path);
            return { code: rewritten.code, moduleType: type };
          } catch (error) {
            refused ??= error as Error;
            throw error;
          }
        },
      },
    ],
  }).catch(fail);
  try {
    if (unresolved.length > 0) throw new Error(unresolved[0]);
    const output = await build.generate({ format: 'esm', codeSplitting: false }).catch(fail);
    const chunk = output.output[0];
    return {
      // The name stack traces give the bundle (a `data:` URL would be printed whole).
      code: `${header([...framework].sort())}\n${banner(entry)}\n${chunk.code}\n//# sourceURL=hermes-bundle:${entry}\n`,
      inputs: [...inputs.values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)),
      framework: [...framework].sort(),
      computedImports: computedImports.sort(),
    };
  } finally {
    await build.close();
  }
}

/** The bundler's first error, without its summary and colours. */
function bundlerError(error: unknown): Error {
  const first = (error as { errors?: Array<{ message?: unknown }> })?.errors?.[0]?.message;
  const message = typeof first === 'string' ? first : String((error as Error)?.message ?? error);
  // biome-ignore lint/suspicious/noControlCharactersInRegex: terminal colour codes
  return new Error(message.replace(/\u001b\[[0-9;]*m/g, '').trim());
}

function readInput(
  id: string,
  realRoot: string,
  allowed: ReadonlyMap<string, string> | undefined,
): { text: string; file: string; record: BundleInput } {
  const file = realpathSync(id);
  const path = relative(realRoot, file).split(sep).join('/');
  const bytes = readFileSync(file);
  const digest = sha256(bytes);
  if (allowed !== undefined) {
    const trusted = allowed.get(path);
    if (trusted === undefined) {
      throw new Error(
        `imports ${path}, which is not part of what was trusted; review it and run \`${hermesCommand()} extensions trust\``,
      );
    }
    if (trusted !== digest) {
      throw new Error(
        `imports ${path}, which changed since the project was trusted; review it and run \`${hermesCommand()} extensions trust\``,
      );
    }
  }
  return {
    text: bytes.toString('utf8'),
    file,
    record: { file, path, size: bytes.length, sha256: digest },
  };
}

/** A framework module inside the bundle: the running framework's exports, by name. */
async function frameworkModule(specifier: string): Promise<string> {
  const names = Object.keys(await frameworkNamespace(specifier)).filter((n) => n !== 'default');
  return [
    `const m = __hermes.framework(${JSON.stringify(specifier)});`,
    `export default ("default" in m ? m.default : m);`,
    ...names.map((name, i) => `const v${i} = m[${JSON.stringify(name)}];`),
    names.length > 0
      ? `export { ${names.map((name, i) => `v${i} as ${JSON.stringify(name)}`).join(', ')} };`
      : '',
  ].join('\n');
}

/**
 * Loaded on first use (some 300 ms): only trusting, and a load with no bundle made yet, need it.
 * By name, from this file: Node finds it where usableRolldown looked (src/optional-peers.ts),
 * beside the framework, not from the folder the agent works in.
 */
function loadRolldown(): Promise<typeof import('rolldown')> {
  rolldownModule ??= import('rolldown');
  return rolldownModule;
}

let rolldownModule: Promise<typeof import('rolldown')> | undefined;

/**
 * Also on first use: rolldown's parser (a native binding, some 100 ms), which rewrite.ts uses, is
 * needed only where rolldown is; every hook or command that only loads bundles made before would
 * pay for it at start.
 */
function loadParser(): Promise<typeof import('rolldown/parseAst')> {
  parserModule ??= import('rolldown/parseAst');
  return parserModule;
}

let parserModule: Promise<typeof import('rolldown/parseAst')> | undefined;
