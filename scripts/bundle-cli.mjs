// Bundles the command line into one file (dist/cli.bundle.js), the framework and zod with it:
// on Node 20 loading ~150 small ES modules costs more than parsing one file (BENCHMARKS.md, CLI
// start-up). Libraries the CLI imports only for some commands stay separate and lazy.
import { rolldown } from 'rolldown';

const bundle = await rolldown({
  input: 'dist/cli/main.js',
  platform: 'node',
  external: ['jiti', 'cosmiconfig', 'yaml', 'diff', /^node:/],
  logLevel: 'warn',
});
await bundle.write({ file: 'dist/cli.bundle.js', format: 'esm', codeSplitting: false });
await bundle.close();
