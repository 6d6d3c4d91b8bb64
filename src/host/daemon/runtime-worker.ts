/**
 * The entry of a hook daemon's runtime worker (runtime-workers.ts): a thread holding one runtime,
 * of one project as the environment of the hooks it serves sees it. The read recorder goes in
 * before the framework is imported, so that everything the framework and the extensions read
 * while the runtime loads is recorded (read-recorder.ts).
 */
import { workerData } from 'node:worker_threads';
import { installReadRecorder } from './read-recorder.js';
import type { WorkerSetup } from './worker-messages.js';

const recorder = installReadRecorder((workerData as WorkerSetup).exclude);
const { serveEvents } = await import('./worker-events.js');
serveEvents(recorder);
