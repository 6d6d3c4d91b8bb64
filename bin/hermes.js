#!/usr/bin/env node
// The package's command line. It runs the compiled sources, which `npm install` builds.
import { existsSync } from 'node:fs';

// The bundled command line starts faster; the plain build works the same.
const bundled = new URL('../dist/cli.bundle.js', import.meta.url);
const entry = existsSync(bundled) ? bundled : new URL('../dist/cli/main.js', import.meta.url);
if (!existsSync(entry)) {
  process.stderr.write(
    'hermes: the package is not built (dist/ is missing). Run `npm install` or `npm run build` in it.\n',
  );
  process.exit(2);
}
// Output piped into `head` and the like: a closed pipe ends the command quietly, not with a trace.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw error;
  });
}
const { main } = await import(entry.href);
process.exitCode = await main(process.argv.slice(2));
