// The entry of each runtime thread of the hook daemon (src/host/daemon/worker-entry.ts): the
// worker's bundle (dist/daemon-worker.bundle.cjs, scripts/bundle-cli.mjs), compiled from V8's
// code cache of it where there is one (code-cache.cjs). Each thread compiles the framework anew,
// and a session's first prompt waits for the first thread to (docs/command-hooks.md, "Code
// caches"). A thread that had none makes it once it has had time to load a runtime and answer.
'use strict';
const { join } = require('node:path');
const { requireCached } = require('./code-cache.cjs');

/** How long after its start a thread makes the cache: by then it has usually answered an event. */
const SAVE_AFTER_MS = 5_000;

const dist = join(__dirname, '..', 'dist');
const worker = requireCached(
  join(dist, 'daemon-worker.bundle.cjs'),
  join(dist, `daemon-worker.${process.version}-${process.arch}.v8cache`),
);
if (worker.save) setTimeout(worker.save, SAVE_AFTER_MS).unref();
