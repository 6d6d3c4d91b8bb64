// The entry of each runtime thread of the hook daemon (src/host/daemon/worker-entry.ts): the
// worker's bundle (dist/daemon-worker.bundle.cjs, scripts/bundle-cli.mjs), compiled from V8's
// code cache of it where there is one (code-cache.cjs). Each thread compiles the framework anew,
// and a session's first prompt waits for the first thread to (docs/command-hooks.md, "Code
// caches"). A thread that had none makes it once it has answered an event (worker-events.ts
// `answered`), a second later, when what it ran to load a runtime and answer is compiled and the
// events that came with the first are answered too.
'use strict';
const { join } = require('node:path');
const { requireCached } = require('./code-cache.cjs');

const dist = join(__dirname, '..', 'dist');
const worker = requireCached(
  join(dist, 'daemon-worker.bundle.cjs'),
  join(dist, `daemon-worker.${process.version}-${process.arch}.v8cache`),
);
const { save } = worker;
if (save) {
  globalThis[Symbol.for('hermes-extensions.daemon.worker-answered')] = () =>
    setTimeout(save, 1_000).unref();
}
