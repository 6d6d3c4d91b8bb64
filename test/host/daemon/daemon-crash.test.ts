import { describe, expect, it } from 'vitest';
import { exitOnDaemonCrash } from '../../../src/host/daemon/daemon-crash.js';

/** The safety net with its crashes, stop and exit in the test's hands. */
function guarded() {
  const logged: string[] = [];
  const exits: number[] = [];
  let stops = 0;
  let stopped: () => void = () => {};
  let crash: (kind: string, error: unknown) => void = () => {};
  exitOnDaemonCrash({
    log: {
      debug: () => {},
      info: () => {},
      warn: () => {},
      error: (message) => logged.push(message),
    },
    stop: () => {
      stops++;
      return new Promise<void>((resolve) => {
        stopped = resolve;
      });
    },
    exit: (code) => exits.push(code),
    crashes: (listener) => {
      crash = listener;
    },
  });
  return {
    logged,
    exits,
    stops: () => stops,
    stopped: () => stopped(),
    crash: (k: string, e: unknown) => crash(k, e),
  };
}

describe("the hook daemon's own safety net", () => {
  it('logs a crash with its error, stops the daemon (socket, runtimes), then exits 1', async () => {
    const net = guarded();
    net.crash('uncaught exception', new Error('daemon bug'));
    expect(net.logged).toHaveLength(1);
    expect(net.logged[0]).toMatch(/stopping after an uncaught exception: Error: daemon bug/);
    expect(net.stops()).toBe(1);
    // Not before the socket is gone: a hook would connect to a daemon that never answers.
    expect(net.exits).toEqual([]);
    net.stopped();
    await new Promise((resolve) => setImmediate(resolve));
    expect(net.exits).toEqual([1]);
  });

  it('stops once when crashes follow one another, logging each', () => {
    const net = guarded();
    net.crash('uncaught exception', new Error('first'));
    net.crash('unhandled rejection', 'second');
    expect(net.stops()).toBe(1);
    expect(net.logged[1]).toMatch(/unhandled rejection: .*second/);
  });
});
