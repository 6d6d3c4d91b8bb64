import { existsSync, readFileSync, statSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { built } from '../../support/run-bin.js';
import { answeredBy, ended, reasonOf, startDaemon } from './daemon-support.js';
import { decidedBy, eventually, hook, recorded, SLOW, stopDaemon } from './fault-support.js';

// 10 s to the deadline: waiting for a stopped daemon until 3 s before it would leave the
// in-process answer less than the recorder's SLOW_MS, and its answer would be the framework's
// late refusal, not the recorder's.
const DEADLINE = { HERMES_HOOK_DEADLINE_MS: '10000' };

describe.runIf(built)('a hook daemon that does not serve (stopped)', () => {
  it('is found out at once: the call answered in-process with most of its deadline, one replacement started, and the old daemon starts nothing when it resumes', async () => {
    const r = recorded(DEADLINE);
    const old = await startDaemon(r.env);
    expect(old.socket).toBe(r.socket);
    const oldPid = old.child.pid as number;
    // Warm: the old daemon answers, its runtime loaded.
    expect(reasonOf(await hook(r, 'warm', 'warm'))).toBe(decidedBy('warm'));
    expect(r.decisions()).toEqual([{ pid: oldPid, command: 'warm' }]);
    const oldSocket = statSync(r.socket).ino;
    const marker = r.socket.replace(/\.sock$/, '.stuck');

    process.kill(oldPid, 'SIGSTOP');
    try {
      const first = hook(r, 's1', SLOW);
      // The first call marks the daemon as not serving: the marker names the socket it found.
      const marked = await eventually(() =>
        existsSync(marker) ? JSON.parse(readFileSync(marker, 'utf8')) : undefined,
      );
      expect(marked).toMatchObject({ ino: oldSocket });
      // A call meanwhile does not wait for the stopped daemon again.
      const second = await hook(r, 's2', 'second');
      expect(reasonOf(second)).toBe(decidedBy('second'));
      expect(second.stderr).not.toMatch(/did not acknowledge/);

      // The recorder's own answer, though it takes 4 s: the in-process answer had more than 3 s.
      const answer = await first;
      expect(reasonOf(answer)).toBe(decidedBy(SLOW));
      expect(answer.stderr).toMatch(/did not acknowledge/);

      // One replacement, which now answers at the same path.
      const replacement = await eventually(() => r.daemonStarts()[1]);
      expect(replacement).toBeDefined();
      await eventually(() => (statSync(r.socket).ino !== oldSocket ? true : undefined));
      const before = await answeredBy(r.socket);
      expect(reasonOf(await hook(r, 's3', 'third'))).toBe(decidedBy('third'));
      expect(await answeredBy(r.socket)).toBe(before + 1);
      expect(r.decisions()).toContainEqual({ pid: replacement, command: 'third' });
    } finally {
      process.kill(oldPid, 'SIGCONT');
    }
    // Resumed, the old daemon goes, and does not decide the call it was abandoned with.
    expect(await ended(old.child)).toBe(0);
    expect(r.decisions().filter(({ pid }) => pid === oldPid)).toEqual([
      { pid: oldPid, command: 'warm' },
    ]);
    expect(r.decisions().filter(({ command }) => command === SLOW)).toHaveLength(1);
    // It took its marker with it.
    expect(existsSync(marker)).toBe(false);
    expect(r.daemonStarts()).toHaveLength(2);
    await stopDaemon(r.env);
  });

  it('is replaced at once also when a hook started it moments before', async () => {
    const r = recorded(DEADLINE);
    // No daemon: this hook starts one, which then answers.
    expect(reasonOf(await hook(r, 'cold', 'cold'))).toBe(decidedBy('cold'));
    const first = await eventually(() => r.daemonStarts()[0]);
    if (first === undefined) throw new Error('no daemon was started');
    await eventually(() => (existsSync(r.socket) ? true : undefined));
    expect(reasonOf(await hook(r, 'warm', 'warm'))).toBe(decidedBy('warm'));
    expect(r.decisions()).toContainEqual({ pid: first, command: 'warm' });

    process.kill(first, 'SIGSTOP');
    try {
      const answer = await hook(r, 's1', 'stopped');
      expect(reasonOf(answer)).toBe(decidedBy('stopped'));
      expect(answer.stderr).toMatch(/did not acknowledge .*\(a new daemon is started\)/);
      const replacement = await eventually(() => r.daemonStarts()[1]);
      expect(replacement).toBeDefined();
    } finally {
      process.kill(first, 'SIGCONT');
    }
    const gone = await eventually(() => {
      try {
        process.kill(first, 0);
        return undefined;
      } catch {
        return true;
      }
    });
    expect(gone).toBe(true);
    expect(r.decisions().filter(({ pid }) => pid === first)).toEqual([
      { pid: first, command: 'warm' },
    ]);
    await stopDaemon(r.env);
  });
});
