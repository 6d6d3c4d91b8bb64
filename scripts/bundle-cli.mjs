// Bundles the command line into one file (dist/cli.bundle.js), the framework and zod with it:
// on Node 20 loading ~150 small ES modules costs more than parsing one file (BENCHMARKS.md, CLI
// start-up). Libraries the CLI imports only for some commands stay separate and lazy.
// The hook daemon's client goes into one CommonJS file (dist/hook-client.cjs) that bin/hermes.js
// requires: loading it as ES modules starts Node's ES module loader, about 10 ms on every hook
// call (BENCHMARKS.md, "Hook call"). And the daemon's runtime worker into one file
// (dist/daemon-worker.bundle.js): each new runtime starts a thread that loads the framework anew.
import { rolldown } from 'rolldown';

const bundles = [
  {
    input: 'dist/cli/main.js',
    external: ['jiti', 'cosmiconfig', 'yaml', 'diff', /^rolldown(\/|$)/, /^node:/],
    output: { file: 'dist/cli.bundle.js', format: 'esm' },
  },
  {
    input: 'dist/host/daemon/runtime-worker.js',
    external: ['jiti', 'cosmiconfig', 'yaml', 'diff', /^rolldown(\/|$)/, /^node:/],
    output: { file: 'dist/daemon-worker.bundle.js', format: 'esm' },
  },
  {
    input: 'dist/host/daemon/client.js',
    external: [/^node:/],
    output: { file: 'dist/hook-client.cjs', format: 'cjs' },
  },
];
for (const { input, external, output } of bundles) {
  const bundle = await rolldown({ input, platform: 'node', external, logLevel: 'warn' });
  await bundle.write({ ...output, codeSplitting: false });
  await bundle.close();
}
