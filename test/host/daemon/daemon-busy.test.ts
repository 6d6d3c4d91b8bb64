import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DAEMON_PROTOCOL } from '../../../src/host/daemon/protocol.js';
import { tree, tsExtension } from '../../support/fixtures.js';
import { built } from '../../support/run-bin.js';
import {
  ask,
  askHook,
  bash,
  hookClient,
  reasonOf,
  socketFolder,
  startDaemon,
} from './daemon-support.js';
import { eventually } from './fault-support.js';

// A runtime that does not take what it is sent (its thread in a synchronous loop), and more
// runtimes wanted than the daemon keeps: calls are sent again only where that cannot decide one
// twice, and wait their turn for a runtime without one project starving the others.

/** The tool call's `command` on which the extension's handler never yields. */
const SPIN = 'spin';
/** The command on which it waits SLOW_MS (yielding) before it decides. */
const SLOW = 'slow';
const SLOW_MS = 3_000;
/** The command on which it fills its heap, slowly (about a second to the daemon's 96 MB). */
const OOM = 'oom';

/**
 * A home whose one extension notes each call it starts (`started`), and each it decides with the
 * id of the thread that decided it (`decided`), letting every call through.
 */
function setup() {
  const notes = tree();
  const started = join(notes, 'started.log');
  const decided = join(notes, 'decided.log');
  const busy = tsExtension(
    'busy',
    `hermes.on('intercept_tool_call', async (e) => {
      const command = String(e.toolArgs.command);
      appendFileSync(${JSON.stringify(started)}, command + '\\n');
      if (command === ${JSON.stringify(SLOW)}) await new Promise((r) => setTimeout(r, ${SLOW_MS}));
      if (command === ${JSON.stringify(SPIN)}) for (;;) {}
      if (command === ${JSON.stringify(OOM)}) {
        const hog: number[][] = [];
        for (;;) {
          hog.push(new Array(100_000).fill(hog.length));
          const t = Date.now();
          while (Date.now() - t < 10) {}
        }
      }
      appendFileSync(${JSON.stringify(decided)}, threadId + ' ' + command + '\\n');
      return undefined;
    }, { timeoutMs: 60_000 });`,
    `import { appendFileSync } from 'node:fs';\nimport { threadId } from 'node:worker_threads';`,
  );
  const home = tree({ 'extensions/busy.ts': busy });
  // The tests' own HERMES_DAEMON=0 (vitest.config.ts) is not the hooks'.
  const env = {
    HERMES_HOME: home,
    HOME: home,
    HERMES_DAEMON_DIR: socketFolder(),
    HERMES_DAEMON: undefined,
  };
  const lines = (file: string) =>
    existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : [];
  return {
    env,
    /** Whether the extension has started a call of `command`. */
    hasStarted: (command: string) => (lines(started).includes(command) ? true : undefined),
    decisions: () =>
      lines(decided).map((line) => {
        const [thread, command] = line.split(' ');
        return { thread: Number(thread), command };
      }),
  };
}

/** Let through: exit 0 and no refusal (a shell call may come back wrapped in the OS sandbox). */
const allowed = (answer: { code: number; stdout: string }) =>
  answer.code === 0 && reasonOf(answer) === undefined;
const runtimesOf = async (socket: string) =>
  (await ask(socket, `{"v":${DAEMON_PROTOCOL},"control":"status"}`)).runtimes as number;

describe.runIf(built)('the hook daemon, with a runtime that does not take what it is sent', () => {
  it('sends a call its stuck runtime never started to a fresh runtime of the project, and refuses one it had started', async () => {
    const { env, hasStarted, decisions } = setup();
    const project = tree({ '.git/HEAD': '' });
    const { socket, stderr } = await startDaemon({ ...env, HERMES_HOOK_DEADLINE_MS: '10000' });
    expect(allowed(await askHook(socket, 'claude-code', bash(project, 'w', 'warm')))).toBe(true);
    const [warm] = decisions();
    // Started, then waiting: its runtime's thread has taken it.
    const slow = askHook(socket, 'claude-code', bash(project, 'c', SLOW));
    expect(await eventually(() => hasStarted(SLOW))).toBe(true);
    // The thread in a loop from now on: it takes nothing more.
    const spun = askHook(socket, 'claude-code', bash(project, 'a', SPIN));
    expect(await eventually(() => hasStarted(SPIN))).toBe(true);

    // Another session of the project: answered, by another runtime.
    expect(allowed(await askHook(socket, 'claude-code', bash(project, 'b', 'next')))).toBe(true);
    const next = decisions().find(({ command }) => command === 'next');
    expect(next?.thread).toBeDefined();
    expect(next?.thread).not.toBe(warm?.thread);
    expect(stderr()).toMatch(/not taken by the runtime of .*: sent to a fresh one/);

    // What the stuck runtime had started is refused, never decided by another runtime: the first
    // at its deadline (which ends the thread), the other as the thread ends or at its own.
    expect(reasonOf(await slow)).toMatch(/did not decide within 10 s/);
    expect(reasonOf(await spun)).toMatch(
      /runtime ended before it answered|did not decide within 10 s/,
    );
    expect(decisions().map(({ command }) => command)).toEqual(['warm', 'next']);
  });

  it('sends a call pending when its runtime ran out of memory to a fresh runtime', async () => {
    const { env, hasStarted, decisions } = setup();
    const project = tree({ '.git/HEAD': '' });
    // Every thread of the daemon with a small heap, which the extension fills on OOM.
    const { socket, stderr } = await startDaemon({
      ...env,
      NODE_OPTIONS: '--max-old-space-size=96',
    });
    expect(allowed(await askHook(socket, 'claude-code', bash(project, 'w', 'warm')))).toBe(true);
    const [warm] = decisions();
    const filling = askHook(socket, 'claude-code', bash(project, 'a', OOM));
    expect(await eventually(() => hasStarted(OOM))).toBe(true);
    // Sent while the thread fills its heap: it never takes it.
    expect(allowed(await askHook(socket, 'claude-code', bash(project, 'b', 'next')))).toBe(true);
    expect(reasonOf(await filling)).toMatch(/out of memory/i);
    const next = decisions().find(({ command }) => command === 'next');
    expect(next?.thread).toBeDefined();
    expect(next?.thread).not.toBe(warm?.thread);
    expect(stderr()).toMatch(/not taken by the runtime of .*: sent to a fresh one/);
  });
});

describe.runIf(built)('the hook daemon, with more runtimes wanted than it keeps', () => {
  it('keeps at most HERMES_DAEMON_MAX_RUNTIMES even when every one is busy: a call for another project waits its turn', async () => {
    const { env, hasStarted, decisions } = setup();
    const [one, two] = [tree({ '.git/HEAD': '' }), tree({ '.git/HEAD': '' })];
    const { socket } = await startDaemon({ ...env, HERMES_DAEMON_MAX_RUNTIMES: '1' });
    expect(allowed(await askHook(socket, 'claude-code', bash(one, 'w', 'warm')))).toBe(true);
    const slow = askHook(socket, 'claude-code', bash(one, 'c', SLOW));
    expect(await eventually(() => hasStarted(SLOW))).toBe(true);
    let answered = false;
    const other = askHook(socket, 'claude-code', bash(two, 'o', 'other')).finally(() => {
      answered = true;
    });
    const seen: number[] = [];
    while (!answered) {
      seen.push(await runtimesOf(socket));
      await new Promise((tick) => setTimeout(tick, 50));
    }
    expect(allowed(await other)).toBe(true);
    expect(allowed(await slow)).toBe(true);
    expect(Math.max(...seen)).toBe(1);
    expect(decisions().map(({ command }) => command)).toEqual(['warm', SLOW, 'other']);
  });

  it('does not let a stuck project starve the others: its runtime is found stuck and its place given', async () => {
    const { env, hasStarted } = setup();
    const [one, two] = [tree({ '.git/HEAD': '' }), tree({ '.git/HEAD': '' })];
    const { socket } = await startDaemon({
      ...env,
      HERMES_DAEMON_MAX_RUNTIMES: '1',
      HERMES_HOOK_DEADLINE_MS: '10000',
    });
    expect(allowed(await askHook(socket, 'claude-code', bash(one, 'w', 'warm')))).toBe(true);
    const spun = askHook(socket, 'claude-code', bash(one, 'a', SPIN));
    expect(await eventually(() => hasStarted(SPIN))).toBe(true);
    expect(allowed(await askHook(socket, 'claude-code', bash(two, 'o', 'other')))).toBe(true);
    expect(reasonOf(await spun)).toMatch(/did not decide within 10 s/);
  });

  it("leaves a call to its client's in-process answer when no runtime is free in half its time, rather than letting it wait out its deadline", async () => {
    const { env, hasStarted, decisions } = setup();
    const [one, two] = [tree({ '.git/HEAD': '' }), tree({ '.git/HEAD': '' })];
    // 6 s to the deadline: the hook client waits for the daemon until 3 s before it, so the call
    // for the other project waits at most 1.5 s for a place, which the slow call holds for 3 s.
    const { socket, stderr } = await startDaemon({
      ...env,
      HERMES_DAEMON_MAX_RUNTIMES: '1',
      HERMES_HOOK_DEADLINE_MS: '6000',
    });
    expect(allowed(await askHook(socket, 'claude-code', bash(one, 'w', 'warm')))).toBe(true);
    const slow = askHook(socket, 'claude-code', bash(one, 'c', SLOW));
    expect(await eventually(() => hasStarted(SLOW))).toBe(true);
    expect(allowed(await hookClient(socket, 'claude-code', bash(two, 'o', 'other')))).toBe(true);
    // Decided by the hook process itself (its main thread), not by a runtime of the daemon.
    expect(decisions().find(({ command }) => command === 'other')?.thread).toBe(0);
    expect(stderr()).toMatch(/a claude-code PreToolUse not started: no runtime took it in time/);
    expect(allowed(await slow)).toBe(true);
  });
});
