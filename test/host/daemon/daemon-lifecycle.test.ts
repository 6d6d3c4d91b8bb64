import { spawn } from 'node:child_process';
import { chmodSync, chownSync, existsSync, statSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { tree } from '../../support/fixtures.js';
import { bin, built, runBin } from '../../support/run-bin.js';
import { ask, askHook, ended, socketFolder, startDaemon } from './daemon-support.js';

function setup(extra: Record<string, string> = {}) {
  const home = tree();
  return {
    home,
    env: { HERMES_HOME: home, HOME: home, HERMES_DAEMON_DIR: socketFolder(), ...extra },
  };
}

describe.runIf(built)('the hook daemon process', () => {
  it('listens on a socket only its user can use, in a folder only its user can use', async () => {
    const { env } = setup();
    const { socket } = await startDaemon(env);
    expect(socket.startsWith(`${env.HERMES_DAEMON_DIR}/`)).toBe(true);
    expect(statSync(socket).mode & 0o777).toBe(0o600);
    expect(statSync(env.HERMES_DAEMON_DIR).mode & 0o777).toBe(0o700);
  });

  it('replaces the stale socket of a dead daemon, and leaves a live one be', async () => {
    const { env } = setup();
    const first = await startDaemon(env);
    // Killed: its socket stays behind, and nothing listens on it.
    await ended(first.child, 'SIGKILL');
    expect(existsSync(first.socket)).toBe(true);
    const second = await startDaemon(env);
    expect(second.socket).toBe(first.socket);
    expect(
      await askHook(second.socket, 'claude-code', {
        hook_event_name: 'Notification',
        session_id: 's',
      }),
    ).toEqual({
      code: 0,
      stdout: '',
      stderr: '',
    });
    // One already answers: another start goes quietly.
    const third = await runBin(['daemon', 'run'], env);
    expect(third).toEqual({ code: 0, stdout: '', stderr: '' });
    expect((await ask(second.socket, '{"v":1,"control":"status"}')).pid).toBe(second.child.pid);
  });

  it('started several times at once, ends as one daemon that answers', async () => {
    const { env } = setup();
    const starts = Array.from({ length: 4 }, () =>
      spawn(process.execPath, [bin, 'daemon', 'run'], {
        env: { ...process.env, ...env },
        stdio: 'ignore',
      }),
    );
    try {
      // Those that lost the race exit by themselves (at once, or once they see the path taken):
      // waited for as they exit, not for a fixed time a loaded machine may need more than. Should
      // one stay, the wait ends after 20 s and the count below says so.
      const exits = starts.map((child) => ended(child));
      let exitedCount = 0;
      await Promise.race([
        new Promise<void>((resolve) => {
          for (const exit of exits)
            void exit.then(() => {
              if (++exitedCount === starts.length - 1) resolve();
            });
        }),
        new Promise((resolve) => setTimeout(resolve, 20_000)),
      ]);
      const alive = starts.filter((c) => c.exitCode === null && c.signalCode === null);
      expect(alive).toHaveLength(1);
      const socket = (await runBin(['daemon', 'status', '--json'], env)).stdout;
      expect(JSON.parse(socket)).toMatchObject([{ pid: alive[0]?.pid, thisEnvironment: true }]);
    } finally {
      await Promise.all(starts.map((child) => ended(child, 'SIGTERM')));
    }
  });

  it('exits on its own once idle, and removes its socket', async () => {
    const { env } = setup({ HERMES_DAEMON_IDLE_MS: '400' });
    const { child, socket } = await startDaemon(env);
    expect(await ended(child)).toBe(0);
    expect(existsSync(socket)).toBe(false);
  });

  it('exits once idle however often it is asked its status: only an event is use', async () => {
    // `hermes daemon status` from any terminal, or a tool that watches it, asks every daemon of
    // the user: were that use, a daemon nobody's hooks need would live as long as it is watched.
    const { env } = setup({ HERMES_DAEMON_IDLE_MS: '1500' });
    const { child, socket } = await startDaemon(env);
    let exited = false;
    const exit = ended(child).then((code) => {
      exited = true;
      return code;
    });
    let asked = 0;
    for (const until = Date.now() + 15_000; !exited && Date.now() < until; asked++) {
      await ask(socket, '{"v":2,"control":"status"}').catch(() => undefined);
      await new Promise((tick) => setTimeout(tick, 200));
    }
    expect(exited).toBe(true);
    expect(await exit).toBe(0);
    expect(asked).toBeGreaterThan(4);
  });

  it('stops on `hermes daemon stop` and on SIGTERM; status says whether it runs', async () => {
    const { env } = setup();
    const first = await startDaemon(env);
    const running = await runBin(['daemon', 'status'], env);
    expect(running.code).toBe(0);
    expect(running.stdout).toContain(`This environment: pid ${first.child.pid}, ${first.socket}`);
    expect(running.stdout).toMatch(/0 project\(s\) loaded, 0 runtime\(s\) in \d+ MB$/m);
    const stop = await runBin(['daemon', 'stop'], env);
    expect(stop.stdout).toContain(`Stopped the hook daemon ${first.child.pid}`);
    expect(await ended(first.child)).toBe(0);
    expect(existsSync(first.socket)).toBe(false);
    const none = await runBin(['daemon', 'status'], env);
    expect(none.code).toBe(1);
    expect(none.stdout).toMatch(/No hook daemon runs for this environment/);
    expect((await runBin(['daemon', 'stop'], env)).stdout).toMatch(/No hook daemon runs/);

    const second = await startDaemon(env);
    expect(await ended(second.child, 'SIGTERM')).toBe(0);
    expect(existsSync(second.socket)).toBe(false);
  });

  it('refuses a socket folder other users can open', async () => {
    const { env } = setup();
    chmodSync(env.HERMES_DAEMON_DIR, 0o755);
    const run = await runBin(['daemon', 'run'], env);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/is open to other users \(mode 755; it must be 700\)/);
    expect((await runBin(['daemon', 'status'], env)).code).toBe(2);
  });

  it("is the command line's in any other words than the two hooks start it with", async () => {
    const { env } = setup();
    const help = await runBin(['daemon', 'run', '--help'], env);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/Usage: hermes daemon run \[options\]/);
    expect(help.stdout).toMatch(/--warm/);
    const unknown = await runBin(['daemon', 'run', '--cold'], env);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/unknown option '--cold'/);
    // Neither started a daemon.
    expect((await runBin(['daemon', 'status'], env)).code).toBe(1);
  });

  it.runIf(process.getuid?.() === 0)('refuses a socket folder of another user', async () => {
    const { env } = setup();
    chownSync(env.HERMES_DAEMON_DIR, 12345, 12345);
    const run = await runBin(['daemon', 'run'], env);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/belongs to user 12345, not to this user/);
  });
});
