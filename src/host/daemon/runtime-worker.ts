/**
 * The entry of a hook daemon's runtime worker (runtime-workers.ts): a thread holding one runtime,
 * of one project, for the hooks whose environment it was loaded with. The thread's `process.env`
 * (thread-env.ts) and the read recorder (read-recorder.ts) go in before the framework is
 * imported, so that everything the framework and the extensions read while the runtime loads —
 * files and environment variables — is recorded.
 */
import { workerData } from 'node:worker_threads';
import { hermesHome } from '../../config/locations.js';
import { installReadRecorder } from './read-recorder.js';
import { installThreadEnv } from './thread-env.js';
import { frameworkFolders } from './worker-entry.js';
import type { WorkerSetup } from './worker-messages.js';

// The daemon's first thread is started before the daemon has loaded (first-thread.ts): its
// folders are those of the home the daemon's environment names, which the daemon checks.
const exclude = (workerData as WorkerSetup).exclude ?? frameworkFolders(hermesHome());
const env = installThreadEnv();
const recorder = installReadRecorder(exclude);
// Not awaited at the top level: the bundle of this entry is a script too (scripts/bundle-cli.mjs).
void import('./worker-events.js').then(({ serveEvents }) => serveEvents(recorder, env));
