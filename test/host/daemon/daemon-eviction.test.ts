import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DAEMON_PROTOCOL } from '../../../src/host/daemon/protocol.js';
import { tree, tsExtension } from '../../support/fixtures.js';
import { built, runBin } from '../../support/run-bin.js';
import {
  answeredAlike,
  ask,
  askHook,
  bash,
  reasonOf,
  socketFolder,
  startDaemon,
} from './daemon-support.js';
import { decidedBy, eventually, hook, recorded, stopDaemon } from './fault-support.js';

// A daemon that stays small: an idle runtime is let go after a while, and past the memory cap the
// least recently used idle one goes — never one answering a call. Driven by configuration (a short
// idle time, a cap every daemon is over) and observed through the daemon's status and its log.

/** The command on which the extension waits (yielding) until the file `release` exists. */
const HOLD = 'hold';

function setup() {
  const notes = tree();
  const decided = join(notes, 'decided.log');
  const release = join(notes, 'release');
  const guard = tsExtension(
    'guard',
    `hermes.on('intercept_tool_call', async (e) => {
      const command = String(e.toolArgs.command);
      if (command === ${JSON.stringify(HOLD)}) {
        while (!existsSync(${JSON.stringify(release)})) await new Promise((r) => setTimeout(r, 20));
      }
      appendFileSync(${JSON.stringify(decided)}, threadId + ' ' + command + '\\n');
      if (command.startsWith('rm ')) return block('no rm here');
      return undefined;
    }, { timeoutMs: 60_000 });`,
    `import { appendFileSync, existsSync } from 'node:fs';\nimport { threadId } from 'node:worker_threads';`,
  );
  const home = tree({ 'extensions/guard.ts': guard });
  // The tests' own HERMES_DAEMON=0 (vitest.config.ts) is not the hooks'.
  const env = {
    HERMES_HOME: home,
    HOME: home,
    HERMES_DAEMON_DIR: socketFolder(),
    HERMES_DAEMON: undefined,
  };
  const lines = () =>
    existsSync(decided) ? readFileSync(decided, 'utf8').split('\n').filter(Boolean) : [];
  return {
    env,
    /** The held call decides (the extension polls for the file). */
    release: () => writeFileSync(release, ''),
    decisions: () =>
      lines().map((line) => {
        const space = line.indexOf(' ');
        return { thread: Number(line.slice(0, space)), command: line.slice(space + 1) };
      }),
  };
}

interface Warm {
  project: string;
  busy: number;
  idleMs?: number;
}

const statusOf = async (socket: string) =>
  (await ask(socket, `{"v":${DAEMON_PROTOCOL},"control":"status"}`)) as {
    runtimes: number;
    projects: string[];
    warm: Warm[];
    limits: { runtimeIdleMs: number; maxRss: number; maxRuntimes: number };
  };

/** Asks the daemon's status until `test` holds of what is warm (20 s at most); what was warm last. */
async function warmUntil(socket: string, test: (warm: Warm[]) => boolean): Promise<Warm[]> {
  const until = Date.now() + 20_000;
  for (;;) {
    const warm = (await statusOf(socket)).warm;
    if (test(warm) || Date.now() > until) return warm;
    await new Promise((tick) => setTimeout(tick, 25));
  }
}

/** Asks the daemon's status until `test` holds of the projects it keeps (20 s at most). */
async function projectsUntil(
  socket: string,
  test: (projects: string[]) => boolean,
): Promise<string[]> {
  const until = Date.now() + 20_000;
  for (;;) {
    const { projects } = await statusOf(socket);
    if (test(projects) || Date.now() > until) return projects;
    await new Promise((tick) => setTimeout(tick, 25));
  }
}

describe.runIf(built)('the hook daemon lets idle runtimes go', () => {
  it('lets a runtime go once idle for HERMES_DAEMON_RUNTIME_IDLE_MS, and decides its project’s next event as before, in a new runtime', async () => {
    const { env, decisions } = setup();
    const project = tree({ '.git/HEAD': '' });
    const { socket, stderr } = await startDaemon({ ...env, HERMES_DAEMON_RUNTIME_IDLE_MS: '300' });

    const first = await answeredAlike(socket, bash(project, 'a', 'rm -rf build'));
    expect(reasonOf(first)).toBe('no rm here');
    expect(await projectsUntil(socket, (projects) => projects.length === 0)).toEqual([]);
    expect((await statusOf(socket)).limits.runtimeIdleMs).toBe(300);
    expect(stderr()).toContain(`the runtime of ${project} let go: idle for`);

    // The next event of its project: loaded again, and decided as a fresh hook process decides it.
    const again = await answeredAlike(socket, bash(project, 'b', 'rm -rf build'));
    expect(reasonOf(again)).toBe('no rm here');
    const allowed = await answeredAlike(socket, bash(project, 'c', 'ls'));
    expect(reasonOf(allowed)).toBeUndefined();
    const byDaemon = decisions().filter(({ thread }) => thread > 0);
    // The daemon's decisions (threads); the fresh hook process's are on its main thread (0).
    expect(byDaemon.map(({ command }) => command)).toEqual(['rm -rf build', 'rm -rf build', 'ls']);
    expect(byDaemon[1]?.thread).not.toBe(byDaemon[0]?.thread);
  });

  it('shows what is warm in `hermes daemon status`: each runtime, answering or idle, and when it is let go', async () => {
    const { env, release } = setup();
    const [one, two] = [tree({ '.git/HEAD': '' }), tree({ '.git/HEAD': '' })];
    const { socket } = await startDaemon(env);
    expect((await askHook(socket, 'claude-code', bash(one, 'a', 'ls'))).code).toBe(0);
    const held = askHook(socket, 'claude-code', bash(two, 'b', HOLD));
    await warmUntil(socket, (warm) => warm.some((w) => w.project === two && w.busy === 1));

    const shown = await runBin(['daemon', 'status'], env);
    const idleLine = `  warm: ${one} (idle `;
    expect(
      shown.stdout.split('\n').some((line) => line.startsWith(idleLine) && / s\)$/.test(line)),
    ).toBe(true);
    expect(shown.stdout).toContain(`  warm: ${two} (answering 1 event(s))`);
    expect(shown.stdout).toContain(
      'lets a runtime go after 300 s idle (HERMES_DAEMON_RUNTIME_IDLE_MS), and the least recently used idle one while over 300 MB (HERMES_DAEMON_MAX_MB)',
    );
    const json = JSON.parse((await runBin(['daemon', 'status', '--json'], env)).stdout);
    expect(json[0].warm.map((w: Warm) => w.project)).toEqual([one, two]);
    release();
    expect((await held).code).toBe(0);
  });
});

describe.runIf(built)('the hook daemon over its memory cap', () => {
  it('lets the least recently used idle runtime go, never one answering a call, and keeps the last one used', async () => {
    const { env, decisions, release } = setup();
    const [a, b, c] = [
      tree({ '.git/HEAD': '' }),
      tree({ '.git/HEAD': '' }),
      tree({ '.git/HEAD': '' }),
    ];
    // 1 MB: every daemon is over it, all the time.
    const { socket, stderr } = await startDaemon({ ...env, HERMES_DAEMON_MAX_MB: '1' });

    expect((await askHook(socket, 'claude-code', bash(a, 'a', 'ls'))).code).toBe(0);
    // Over the cap, the only runtime, the last one used: kept.
    expect((await statusOf(socket)).projects).toEqual([a]);
    expect((await askHook(socket, 'claude-code', bash(b, 'b', 'ls'))).code).toBe(0);
    // A is the least recently used idle one: let go; B stays.
    expect(await projectsUntil(socket, (projects) => projects.length === 1)).toEqual([b]);

    // B answers a call it holds; C is used meanwhile, and is the last one used.
    const held = askHook(socket, 'claude-code', bash(b, 'b', HOLD));
    await warmUntil(socket, (warm) => warm.some((w) => w.project === b && w.busy === 1));
    const other = await askHook(socket, 'claude-code', bash(c, 'c', 'rm -rf x'));
    expect(reasonOf(other)).toBe('no rm here');
    // B, busy, is not let go under the cap; C, the last one used, neither.
    const both = await statusOf(socket);
    expect(both.warm.map((w) => [w.project, w.busy])).toEqual([
      [b, 1],
      [c, 0],
    ]);

    release();
    const answer = await held;
    expect(answer.code).toBe(0);
    expect(reasonOf(answer)).toBeUndefined();
    // Decided by the runtime that took it, not refused as a runtime ended under it.
    expect(decisions().some(({ command }) => command === HOLD)).toBe(true);
    // Idle now and no longer the last one used: B goes, C stays.
    expect((await warmUntil(socket, (warm) => warm.length === 1)).map((w) => w.project)).toEqual([
      c,
    ]);
    const letGo = [...stderr().matchAll(/the runtime of (\S+) let go: the daemon's memory/g)].map(
      (m) => m[1],
    );
    expect(letGo).toEqual([a, b]);
  });
});

describe.runIf(built && process.platform === 'linux')('the daemon a hook starts', () => {
  it('shares two malloc arenas between its threads (MALLOC_ARENA_MAX=2), unless the hook sets its own', async () => {
    for (const [own, expected] of [
      [undefined, '2'],
      ['4', '4'],
    ] as const) {
      const r = recorded(own === undefined ? {} : { MALLOC_ARENA_MAX: own });
      try {
        expect(reasonOf(await hook(r, 's', 'ls'))).toBe(decidedBy('ls'));
        const pid = await eventually(() => r.daemonStarts()[0]);
        expect(pid).toBeDefined();
        const environ = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
        expect(environ).toContain(`MALLOC_ARENA_MAX=${expected}`);
      } finally {
        await stopDaemon(r.env);
      }
    }
  });
});
