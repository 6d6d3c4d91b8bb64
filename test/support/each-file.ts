import { afterAll, afterEach, vi } from 'vitest';
import { stopDaemons } from '../host/daemon/daemon-support.js';
import { removeTrees } from './fixtures.js';
import { killScripts } from './node-script.js';

/**
 * Run before every test file (vitest.config.ts, `setupFiles`). The files of a worker share one
 * process and its loaded modules (`isolate: false`: loading the framework anew for each of ~150
 * files cost more than most of their tests), so what the shared support modules clean up after
 * each test is registered here, once per file, and what a file changes in the process is put back
 * before the next file runs.
 */

// Registered first, so they run after the file's own afterEach hooks, as they did when each
// support module registered its own.
afterEach(removeTrees);
afterEach(killScripts);
afterEach(stopDaemons);

const env = { ...process.env };
const cwd = process.cwd();

afterAll(() => {
  for (const key of Object.keys(process.env)) if (!(key in env)) delete process.env[key];
  Object.assign(process.env, env);
  if (process.cwd() !== cwd) process.chdir(cwd);
  vi.useRealTimers();
  vi.unstubAllEnvs();
  vi.restoreAllMocks();
});
