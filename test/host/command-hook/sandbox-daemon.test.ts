import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  built,
  guardedProject,
  hookHomes,
  preToolUse,
  runBin,
  runHook,
} from '../../support/run-bin.js';
import { runShellAsync, sandbox, treeDigest } from '../../support/sandbox.js';
import { ended, socketFolder, startDaemon, stopDaemons } from '../daemon/daemon-support.js';

afterEach(stopDaemons);

function setup() {
  const { user, home } = hookHomes();
  const project = guardedProject();
  // The suite turns the daemon off (vitest.config.ts); here the hook asks it.
  const env = {
    HERMES_HOME: home,
    HOME: user,
    HERMES_DAEMON_DIR: socketFolder(),
    HERMES_DAEMON: '1',
  };
  return { user, home, project, env };
}

/** workflow-guard's answer to a Bash call, through `hermes hook claude-code` (the daemon's). */
async function sandboxed(
  { project, home, env }: ReturnType<typeof setup>,
  command: string,
): Promise<string> {
  const answer = await runHook(
    'claude-code',
    home,
    preToolUse('sandbox-daemon', project, 'Bash', { command }, 'call_0'),
    env,
  );
  expect(answer.code, answer.stderr).toBe(0);
  const line = JSON.parse(answer.stdout).hookSpecificOutput?.updatedInput?.command as string;
  expect(line, answer.stdout).toContain(' --unshare-net ');
  return line;
}

/**
 * workflow-guard's sandboxed line, made by the hook daemon (`hermes hook claude-code` hands the
 * event to it), is a bubblewrap line that needs nothing of the daemon once made
 * (docs/policy.md, The OS sandbox): the daemon killed while the command runs, the command goes
 * on in its sandbox, writing only where it may.
 */
describe.runIf(built && sandbox.available)('a sandboxed command and the hook daemon', () => {
  it('the daemon dies while a sandboxed command runs: the command stays in its sandbox', async () => {
    const context = setup();
    const { project, env } = context;
    const before = treeDigest(join(project, 'src'));
    const daemon = await startDaemon(env);
    const line = await sandboxed(
      context,
      'eval "sleep 1; echo late > plans/late; echo late > src/late; echo done"',
    );
    // The hook went through this daemon: it holds the project now.
    const status = await runBin(['daemon', 'status'], env);
    expect(status.stdout).toContain(`pid ${daemon.child.pid}`);
    expect(status.stdout).toMatch(/[1-9]\d* event\(s\) answered/);
    const running = runShellAsync(line, project, { ...process.env, ...env });
    await new Promise((resolve) => setTimeout(resolve, 200));
    await ended(daemon.child, 'SIGKILL');
    const ran = await running;
    expect(ran.stdout).toContain('done');
    expect(ran.stderr).toMatch(/src\/late: Read-only file system/);
    expect(existsSync(join(project, 'plans/late'))).toBe(true);
    expect(existsSync(join(project, 'src/late'))).toBe(false);
    expect(treeDigest(join(project, 'src'))).toBe(before);
  });

  // Named backwards: the framework refuses a command that names the daemon's sockets (protected
  // ground); this attack is on the sandbox, which must hold when the name is built at run time.
  it("the daemon's socket, named by a sandboxed command, cannot be reached from inside", async () => {
    const context = setup();
    const daemon = await startDaemon(context.env);
    const ask = `python3 -c "
import socket, sys
try:
    s = socket.socket(socket.AF_UNIX)
    s.connect(sys.argv[1][::-1])
    s.sendall(b'{\\"v\\":1,\\"control\\":\\"status\\"}\\n')
    print('answered', s.recv(200))
except OSError as e:
    print('refused', e.errno)
" ${[...daemon.socket].reverse().join('')}`;
    // Outside the sandbox the same script reaches the daemon: the test can see a way out.
    const outside = await runShellAsync(ask, context.project, { ...process.env, ...context.env });
    expect(outside.stdout).toContain('answered');
    const line = await sandboxed(context, ask);
    const ran = await runShellAsync(line, context.project, { ...process.env, ...context.env });
    expect(ran.stdout).toContain('refused 1');
    expect(ran.stdout).not.toContain('answered');
  });
});
