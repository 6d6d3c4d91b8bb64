import { describe, expect, it } from 'vitest';
import { RuntimeEviction } from '../../../src/host/daemon/runtime-eviction.js';

// The order in which the daemon lets runtimes go, over the runtimes as the daemon keeps them
// (least recently used first) and a resident memory set by the test: which one goes is what is
// tested here; the daemon's tests (daemon-eviction.test.ts) run it in a real daemon.

interface Runtime {
  name: string;
  users: number;
}

function setup(limits: { idleMs: number; maxRssBytes: number }, runtimes: Runtime[]) {
  const live = [...runtimes];
  const gone: string[] = [];
  const state = { rss: 0, ending: false };
  const eviction = new RuntimeEviction<Runtime>(limits, {
    live: () => live,
    letGo: (worker) => {
      gone.push(worker.name);
      live.splice(live.indexOf(worker), 1);
    },
    ending: () => state.ending,
    rss: () => state.rss,
  });
  for (const runtime of runtimes) eviction.idle(runtime);
  return { eviction, gone, state, live };
}

const MB = 1_048_576;

describe('the daemon over its memory cap', () => {
  it('lets the least recently used idle runtime go, one at a time, never a busy one nor the last used', () => {
    const [a, b, c, d] = ['a', 'b', 'c', 'd'].map((name) => ({ name, users: 0 })) as [
      Runtime,
      Runtime,
      Runtime,
      Runtime,
    ];
    b.users = 1;
    const { eviction, gone, state } = setup({ idleMs: 60_000, maxRssBytes: 100 * MB }, [
      a,
      b,
      c,
      d,
    ]);
    state.rss = 50 * MB;
    eviction.check();
    expect(gone).toEqual([]);

    state.rss = 200 * MB;
    eviction.check();
    expect(gone).toEqual(['a']);
    // While one let go is still ending, its memory is not back yet: no other goes.
    state.ending = true;
    eviction.check();
    expect(gone).toEqual(['a']);
    state.ending = false;
    eviction.check();
    // b answers a call: c goes; d, the last one used, stays.
    expect(gone).toEqual(['a', 'c']);
    eviction.check();
    expect(gone).toEqual(['a', 'c']);
    b.users = 0;
    // Not idle until it has answered (the daemon tells it then).
    eviction.check();
    expect(gone).toEqual(['a', 'c']);
    eviction.idle(b);
    eviction.check();
    expect(gone).toEqual(['a', 'c', 'b']);
    eviction.stop();
  });
});

describe('the daemon with idle runtimes', () => {
  it('lets every runtime idle for its idle time go, the last used too, and none answering a call', () => {
    const [a, b] = [
      { name: 'a', users: 0 },
      { name: 'b', users: 1 },
    ];
    const { eviction, gone } = setup({ idleMs: 0, maxRssBytes: Number.MAX_SAFE_INTEGER }, [a, b]);
    eviction.check();
    expect(gone).toEqual(['a']);
    expect(eviction.idleFor(b)).toBeUndefined();
    eviction.stop();
  });

  it('keeps a runtime within its idle time, and counts it from its last event', () => {
    const a = { name: 'a', users: 0 };
    const { eviction, gone } = setup({ idleMs: 3_600_000, maxRssBytes: Number.MAX_SAFE_INTEGER }, [
      a,
    ]);
    eviction.check();
    expect(gone).toEqual([]);
    expect(eviction.idleFor(a)).toBeGreaterThanOrEqual(0);
    eviction.busy(a);
    expect(eviction.idleFor(a)).toBeUndefined();
    eviction.stop();
  });
});
