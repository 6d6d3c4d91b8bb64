import { once } from 'node:events';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { afterEach, describe, expect, it } from 'vitest';
import {
  FIRST_THREAD,
  type FirstThread,
  takeFirstThread,
} from '../../../src/host/daemon/first-thread.js';
import { tree } from '../../support/fixtures.js';
import { built } from '../../support/run-bin.js';
import { askHook, bash, socketFolder, startDaemon } from './daemon-support.js';
import { eventually } from './fault-support.js';

/**
 * The daemon's first thread as bin/hermes.js leaves it for `hermes daemon run`: a real thread,
 * taken by the daemon only when it is what the daemon would have started itself.
 */
describe("the daemon's first thread", () => {
  const threads: Worker[] = [];
  afterEach(async () => {
    delete (globalThis as { [FIRST_THREAD]?: FirstThread })[FIRST_THREAD];
    await Promise.all(threads.splice(0).map((thread) => thread.terminate()));
  });

  /** A thread that waits, left where bin/hermes.js leaves it. */
  function leave(youngGenerationMb = 3) {
    const file = join(tree({ 'wait.mjs': 'setInterval(() => {}, 1000);\n' }), 'wait.mjs');
    const thread = new Worker(file, {
      resourceLimits: { maxYoungGenerationSizeMb: youngGenerationMb },
    });
    threads.push(thread);
    const first: FirstThread = { thread, file, ended: false };
    thread.once('exit', () => {
      first.ended = true;
    });
    (globalThis as { [FIRST_THREAD]?: FirstThread })[FIRST_THREAD] = first;
    return first;
  }

  it('is taken, once, when its entry, its young generation and the home are the daemon’s', () => {
    const first = leave();
    expect(takeFirstThread(first.file, 3, true)).toBe(first.thread);
    expect(takeFirstThread(first.file, 3, true)).toBeUndefined();
  });

  it.each([
    ['another entry', (file: string) => [`${file}.other`, 3, true] as const],
    ['other limits', (file: string) => [file, 8, true] as const],
    ['another home', (file: string) => [file, 3, false] as const],
  ])('is ended, not taken, when the daemon has %s', async (_, args) => {
    const first = leave();
    const exited = once(first.thread, 'exit');
    const [file, youngGenerationMb, sameHome] = args(first.file);
    expect(takeFirstThread(file, youngGenerationMb, sameHome)).toBeUndefined();
    await exited;
    expect(first.ended).toBe(true);
  });

  it('is not taken once it has ended', async () => {
    const first = leave();
    await first.thread.terminate();
    expect(first.ended).toBe(true);
    expect(takeFirstThread(first.file, 3, true)).toBeUndefined();
  });
});

/** The threads of process `pid` (Linux). */
const threadsOf = (pid: number) =>
  Number(/^Threads:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);

describe.runIf(built && existsSync('/proc/self/status'))(
  "a daemon's first thread, as `hermes daemon run` starts it",
  () => {
    it('is let go when no runtime has taken it within the idle time, as the last spare is', async () => {
      const home = tree();
      const env = {
        HERMES_HOME: home,
        HOME: home,
        HERMES_DAEMON_DIR: socketFolder(),
        HERMES_DAEMON_RUNTIME_IDLE_MS: '400',
      };
      const { child, socket } = await startDaemon(env);
      const pid = child.pid as number;
      const started = threadsOf(pid);
      // Ended: the process holds fewer threads, and a later event still gets a runtime.
      expect(await eventually(() => (threadsOf(pid) < started ? true : undefined), 10_000)).toBe(
        true,
      );
      const project = tree({ '.git/HEAD': '' });
      expect((await askHook(socket, 'claude-code', bash(project), project, env)).code).toBe(0);
    });
  },
);
