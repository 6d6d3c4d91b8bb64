import { existsSync, readFileSync } from 'node:fs';
import { type AddressInfo, createServer, type Socket } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tree } from '../../support/fixtures.js';
import { type Answer, bin, built, runBin, runProcess } from '../../support/run-bin.js';
import { bash, reasonOf, socketFolder } from './daemon-support.js';
import { eventually, stopDaemon } from './fault-support.js';

// Warm before the first prompt (src/host/daemon/warm.ts): a session's start is answered at once
// while the daemon loads the session's runtime, and its first events wait for that load rather
// than loading another copy — through the real hook client, from no daemon running.

/**
 * A home whose one extension records each load (the pid of the process that loads it) and then
 * waits in its setup until the test opens a gate — a loopback connection, not a file, since a
 * file its load read and that changed after would make the daemon load it again: a load that
 * cannot finish until the test lets it. It refuses every Bash call, naming the command and
 * recording who decided.
 */
async function gatedHome() {
  const work = tree();
  const files = { loads: join(work, 'loads.log'), decisions: join(work, 'decisions.log') };
  let opened = false;
  const waiting = new Set<Socket>();
  const gate = createServer((socket) => {
    if (opened) socket.end('go');
    else waiting.add(socket);
  });
  await new Promise<void>((listening) => gate.listen(0, '127.0.0.1', listening));
  const port = (gate.address() as AddressInfo).port;
  const recorder = `import { defineExtension, block } from 'hermes-extensions';
import { appendFileSync } from 'node:fs';
import { connect } from 'node:net';
export default defineExtension({
  name: 'recorder',
  version: '1.0.0',
  async setup(hermes) {
    appendFileSync(${JSON.stringify(files.loads)}, process.pid + '\\n');
    await new Promise((open) => connect(${port}, '127.0.0.1').on('data', open).on('error', open));
    hermes.on('intercept_tool_call', (e) => {
      const command = String(e.toolArgs.command);
      appendFileSync(${JSON.stringify(files.decisions)}, process.pid + ' ' + command + '\\n');
      return block('decided by the recorder: ' + command);
    });
  },
});
`;
  const home = tree({ 'extensions/recorder.ts': recorder });
  const lines = (file: string) =>
    existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : [];
  return {
    home,
    loads: () => lines(files.loads).map(Number),
    decisions: () => lines(files.decisions),
    open: () => {
      opened = true;
      for (const socket of waiting) socket.end('go');
      gate.close();
    },
  };
}

/** The environment of every hook of a test: its home, a socket folder of its own, the daemon on. */
function hookEnv(home: string): Record<string, string | undefined> {
  return {
    HERMES_DAEMON: undefined,
    HERMES_HOME: home,
    HOME: home,
    HERMES_DAEMON_DIR: socketFolder(),
  };
}

/** Claude Code's SessionStart, as it writes it on the hook's stdin (checked with 2.1.330). */
const sessionStart = (cwd: string, session: string) => ({
  session_id: session,
  transcript_path: '/dev/null',
  cwd,
  hook_event_name: 'SessionStart',
  source: 'startup',
});

function hook(env: Record<string, string | undefined>, event: unknown): Promise<Answer> {
  return runProcess(process.execPath, [bin, 'hook', 'claude-code'], {
    env,
    stdin: JSON.stringify(event),
  });
}

/** This environment's daemon, as `hermes daemon status --json` tells it; none if none runs. */
async function daemonOf(env: Record<string, string | undefined>) {
  const status = await runBin(['daemon', 'status', '--json'], env);
  const found = (JSON.parse(status.stdout || '[]') as Array<Record<string, unknown>>).find(
    (daemon) => daemon.thisEnvironment,
  );
  return found as { pid: number; projects: string[]; requests: number } | undefined;
}

/** This environment's daemon once it runs (polled for at most 20 s). */
async function running(env: Record<string, string | undefined>) {
  for (const until = Date.now() + 20_000; Date.now() < until; ) {
    const daemon = await daemonOf(env);
    if (daemon !== undefined) return daemon;
    await new Promise((tick) => setTimeout(tick, 100));
  }
  return undefined;
}

describe.runIf(built)('a session that starts with no daemon running', () => {
  it("is answered at once with nothing while the daemon loads its runtime; its first tool call waits for that load, decided by the daemon's one runtime", async () => {
    const h = await gatedHome();
    const project = tree({ '.git/HEAD': '' });
    const env = hookEnv(h.home);
    try {
      // Claude Code gives its SessionStart hooks alone a CLAUDE_ENV_FILE: the runtime is loaded
      // in the environment of the session's later hooks, which do not have it.
      const started = await hook(
        { ...env, CLAUDE_ENV_FILE: join(h.home, 'session-env.sh') },
        sessionStart(project, 'warm'),
      );
      // Answered while the load cannot finish (its gate is shut): nothing, which allows nothing.
      expect(started).toEqual({ code: 0, stdout: '', stderr: '' });
      expect(h.decisions()).toEqual([]);
      // The daemon was started, and is loading the session's project meanwhile.
      const loading = await eventually(() => h.loads()[0]);
      const daemon = await daemonOf(env);
      expect(daemon).toBeDefined();
      expect(loading).toBe(daemon?.pid);
      expect(daemon?.projects).toEqual([project]);

      // The first tool call arrives before the load has finished: it waits for it.
      const call = hook(env, bash(project, 'warm', 'first'));
      h.open();
      expect(reasonOf(await call)).toBe('decided by the recorder: first');
      expect(h.decisions()).toEqual([`${daemon?.pid} first`]);
      // One load in all: no in-process copy, and no second runtime in the daemon.
      expect(h.loads()).toEqual([daemon?.pid]);
    } finally {
      h.open();
      await stopDaemon(env);
    }
  });

  it('still refuses the first tool call when a project extension fails to load, as a hook process would', async () => {
    const home = tree({});
    const env = hookEnv(home);
    const project = tree({
      '.git/HEAD': '',
      '.hermes/extensions/broken-guard.ts': "throw new Error('broken on purpose');\n",
    });
    expect((await runBin(['extensions', 'trust', '--yes', '--cwd', project], env)).code).toBe(0);
    try {
      expect(await hook(env, sessionStart(project, 'broken'))).toEqual({
        code: 0,
        stdout: '',
        stderr: '',
      });
      expect((await running(env))?.projects).toEqual([project]);
      const viaDaemon = await hook(env, bash(project, 'broken', 'ls'));
      const inProcess = await hook({ ...env, HERMES_DAEMON: '0' }, bash(project, 'fresh', 'ls'));
      const denied = JSON.parse(viaDaemon.stdout).hookSpecificOutput;
      expect(denied.permissionDecision).toBe('deny');
      expect(denied.permissionDecisionReason).toMatch(/broken-guard.*broken on purpose/s);
      expect(viaDaemon).toEqual(inProcess);
      // Answered by the daemon (the session's start was answered by the hook that started it).
      expect((await daemonOf(env))?.requests).toBe(1);
    } finally {
      await stopDaemon(env);
    }
  });
});
