// Bundles the command line into one script (dist/cli.bundle.cjs), the framework and zod with it:
// on Node 20 loading ~150 small ES modules costs more than parsing one file, and a script compiles
// from V8's code cache of it, where an ES module cannot (BENCHMARKS.md, CLI start-up). Libraries the
// CLI imports only for some commands stay separate and lazy.
// The hook daemon's client goes into one CommonJS file (dist/hook-client.cjs) that bin/hermes.js
// requires: loading it as ES modules starts Node's ES module loader, about 10 ms on every hook
// call (BENCHMARKS.md, "Hook call"). And the daemon's runtime worker into one file
// (dist/daemon-worker.bundle.cjs): each new runtime starts a thread that loads the framework anew.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { resolve, sep } from 'node:path';
import { rolldown } from 'rolldown';

const LAZY = [
  'jiti',
  'cosmiconfig',
  'yaml',
  'diff',
  /^rolldown(\/|$)/,
  // An optional peer, loaded from the framework's folder when `hermes mcp` runs (src/host/mcp/sdk.ts).
  /^@modelcontextprotocol\//,
  /^node:/,
];

/**
 * The shipped extensions the two runtime bundles hold (src/extensions/compiled-in.ts), each a
 * lazy part of the bundle that imports the framework as the bundle has it. Not otel: it imports
 * the OpenTelemetry packages, optional peers a user installs on demand, and its own load tells
 * when they are missing (extensions/otel/packages.ts).
 */
const COMPILED_IN = readdirSync('extensions')
  .filter((name) => name !== 'otel' && existsSync(`extensions/${name}/index.ts`))
  .sort();

/** Puts the module that imports each of COMPILED_IN in place of the empty compiled-in.js. */
const compiledIn = {
  name: 'hermes-compiled-in',
  load(id) {
    if (!id.endsWith(`${sep}dist${sep}extensions${sep}compiled-in.js`)) return null;
    for (const name of COMPILED_IN) {
      if (!existsSync(`dist/shipped/${name}/index.js`)) {
        throw new Error(
          `dist/shipped/${name}/index.js is missing: build tsconfig.shipped.json first`,
        );
      }
    }
    const entries = COMPILED_IN.map(
      (name) =>
        `  ${JSON.stringify(name)}: () => import(${JSON.stringify(resolve('dist/shipped', name, 'index.js'))}),`,
    );
    return `export const compiledIn = {\n${entries.join('\n')}\n};\n`;
  },
};

/**
 * A bundle that runs as a script, which bin/hermes.js and loader/daemon-worker.cjs compile from
 * V8's code cache of it (loader/code-cache.cjs): Node 20 has none for an ES module. What it
 * imports lazily is required (each is CommonJS, or an ES module with no top-level await); a file
 * or package whose module format must stay its own is imported through loader/native-import.cjs.
 * No comments, and ASCII only, which V8 holds at one byte a character rather than two (about 2 MB
 * less a runtime thread: BENCHMARKS.md, Daemon soak). Nothing is renamed or rewritten.
 */
const SCRIPT = {
  format: 'cjs',
  dynamicImportInCjs: false,
  comments: false,
  minify: {
    compress: false,
    mangle: false,
    codegen: { removeWhitespace: false, asciiOnly: true },
  },
};

const bundles = [
  {
    input: 'dist/cli/main.js',
    external: LAZY,
    plugins: [compiledIn],
    output: { file: 'dist/cli.bundle.cjs', ...SCRIPT },
  },
  // `hermes daemon run` (src/cli/daemon-main.ts): what the daemon listens with in one file, and
  // apart, loaded at its first event answered with no runtime, the hook's own code, which brings
  // the framework: the daemon's process parses 0.3 MB before it listens, not 2 MB.
  {
    input: { daemon: 'dist/cli/daemon-main.js' },
    external: LAZY,
    plugins: [compiledIn],
    output: {
      dir: 'dist',
      format: 'esm',
      entryFileNames: '[name].bundle.js',
      chunkFileNames: 'daemon-[name].js',
      codeSplitting: {
        groups: [
          { name: 'start', tags: ['$initial'], priority: 2 },
          { name: 'later', test: /./, priority: 1 },
        ],
      },
    },
  },
  {
    input: 'dist/host/daemon/runtime-worker.js',
    external: LAZY,
    plugins: [compiledIn],
    // Each runtime's thread loads it, and keeps its whole source for the functions it compiles
    // lazily.
    output: { file: 'dist/daemon-worker.bundle.cjs', ...SCRIPT },
  },
  {
    input: 'dist/host/daemon/client.js',
    external: [/^node:/],
    plugins: [],
    output: { file: 'dist/hook-client.cjs', format: 'cjs' },
  },
];
for (const { input, external, plugins, output } of bundles) {
  const bundle = await rolldown({ input, platform: 'node', external, plugins, onLog });
  await bundle.write({ codeSplitting: false, ...output });
  await bundle.close();
}

/**
 * Warnings and errors, but not that a module imported lazily somewhere is also imported at once
 * elsewhere: the command line imports its commands lazily, and a bundle of one command has them
 * at once on purpose.
 */
function onLog(level, log, tell) {
  if (level === 'warn' && log.code === 'INEFFECTIVE_DYNAMIC_IMPORT') return;
  if (level === 'warn' || level === 'error') tell(level, log);
}

// The Perl hook client, its values filled in from the modules the Node client reads them from
// (src/host/daemon/perl-client.ts).
const { perlClientText, PERL_CLIENT_FILE, PERL_CLIENT_SOURCES } = await import(
  '../dist/host/daemon/perl-client.js'
);
const { version } = JSON.parse(readFileSync('package.json', 'utf8'));
const sources = PERL_CLIENT_SOURCES.map((name) => readFileSync(`src/host/daemon/${name}`, 'utf8'));
writeFileSync(`dist/${PERL_CLIENT_FILE}`, perlClientText(sources, version));
