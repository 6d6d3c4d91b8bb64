import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { built, guardedProject, hookHomes, preToolUse, runHook } from '../../support/run-bin.js';
import {
  decoy,
  runShell,
  runShellAsync,
  sandbox,
  sandboxedUnder,
  treeDigest,
} from '../../support/sandbox.js';
import { ended, socketFolder, startDaemon, stopDaemons } from '../daemon/daemon-support.js';

afterEach(stopDaemons);

/** The domain the sandbox may reach: a loopback name (the filter resolves it to this machine). */
const ALLOWED = 'localhost';

function setup() {
  const { home } = hookHomes(
    `extensions:\n  paths: [hermes-extensions/workflow-guard]\n  workflow-guard:\n    sandbox_network: [${ALLOWED}]\n`,
    {},
  );
  const project = guardedProject();
  // The suite turns the daemon off (vitest.config.ts); here the hook asks it.
  const env = {
    HERMES_HOME: home,
    HOME: home,
    HERMES_DAEMON_DIR: socketFolder(),
    HERMES_DAEMON: '1',
  };
  return { home, project, env };
}

/** workflow-guard's answer to a Bash call, through `hermes hook claude-code`. */
async function answer({ project, home, env }: ReturnType<typeof setup>, command: string) {
  const answered = await runHook(
    'claude-code',
    home,
    preToolUse('sandbox-network-daemon', project, 'Bash', { command }, 'call_0'),
    env,
  );
  expect(answered.code, answered.stderr).toBe(0);
  return JSON.parse(answered.stdout).hookSpecificOutput?.updatedInput?.command as
    | string
    | undefined;
}

/** The sandboxed line the hook daemon makes: bubblewrap pointed at its network filter. */
async function sandboxed(context: ReturnType<typeof setup>, command: string): Promise<string> {
  const line = await answer(context, command);
  expect(line).toContain(' --unshare-net ');
  expect(line).not.toContain(' --settings ');
  expect(line).toMatch(/ -p '[^']*network-bridge-[0-9a-f]+\.sh' '[^']*network-[0-9a-f]+' /);
  return line as string;
}

const curl = (host: string, port: number, label = host) =>
  `curl -s -m 5 --noproxy '' -o /dev/null -w '${label} %{http_code}\\n' http://${host}:${port}/`;

/**
 * With a domain allowed (`sandbox_network`), the hook daemon keeps the sandbox runtime's network
 * filter running and the line it makes is bubblewrap pointed at it (docs/policy.md, What runs
 * where): the allowed domain passes and no other; when the daemon or its filter is gone, the
 * command fails or has no network, and never runs outside its sandbox.
 */
describe.runIf(built && sandbox.available && runShell('command -v curl socat', '/').code === 0)(
  "a sandboxed command with a domain allowed, through the hook daemon's network filter",
  () => {
    it('reaches the allowed domain and no other, and writes only where it may', async () => {
      const context = setup();
      const server = await decoy({ host: '127.0.0.1' });
      try {
        await startDaemon(context.env);
        const before = treeDigest(join(context.project, 'src'));
        const line = await sandboxed(
          context,
          [
            curl(ALLOWED, server.port),
            curl('denied.localhost', server.port),
            curl('127.0.0.1', server.port),
            `curl -s -m 5 -o /dev/null -w 'direct %{http_code}\\n' --noproxy '*' http://127.0.0.1:${server.port}/`,
            'echo x > src/app.ts',
            'echo y > plans/y',
          ].join('; '),
        );
        const ran = await runShellAsync(line, context.project, { ...process.env, ...context.env });
        expect(ran.stdout).toContain(`${ALLOWED} 200`);
        expect(ran.stdout).toMatch(/denied\.localhost (403|000)/);
        expect(ran.stdout).toMatch(/127\.0\.0\.1 (403|000)/);
        expect(ran.stdout).toContain('direct 000');
        expect(server.reached()).toBe(1);
        expect(ran.stderr).toMatch(/src\/app\.ts: Read-only file system/);
        expect(readFileSync(join(context.project, 'plans/y'), 'utf8')).toBe('y\n');
        expect(treeDigest(join(context.project, 'src'))).toBe(before);
      } finally {
        server.close();
      }
    });

    // The daemon's socket named backwards: the framework refuses a command naming it (protected
    // ground); the sandbox must hold when the name is built at run time.
    it('keeps Unix sockets out of reach of the command, and the bridge out of its sight', async () => {
      const context = setup();
      const daemon = await startDaemon(context.env);
      const line = await sandboxed(
        context,
        `python3 -c "
import socket, sys
try:
    s = socket.socket(socket.AF_UNIX)
    s.connect(sys.argv[1][::-1])
    print('answered')
except OSError as e:
    print('refused', e.errno)
" ${[...daemon.socket].reverse().join('')}; ps -eo comm | grep -c socat`,
      );
      const ran = await runShellAsync(line, context.project, { ...process.env, ...context.env });
      expect(ran.stdout).toBe('refused 1\n0\n');
    });

    it('the daemon dies while a sandboxed command runs: no network, nothing outside', async () => {
      const context = setup();
      const server = await decoy({ host: '127.0.0.1' });
      try {
        const daemon = await startDaemon(context.env);
        const before = treeDigest(join(context.project, 'src'));
        const line = await sandboxed(
          context,
          `${curl(ALLOWED, server.port, 'first')}; sleep 1.5; ${curl(ALLOWED, server.port, 'after')}; echo late > src/late; echo late > plans/late; echo done`,
        );
        const running = runShellAsync(line, context.project, { ...process.env, ...context.env });
        // The first request went through the filter: the daemon is killed after it.
        for (let waited = 0; server.reached() === 0 && waited < 100; waited++) {
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        expect(server.reached()).toBe(1);
        await ended(daemon.child, 'SIGKILL');
        const ran = await running;
        expect(ran.stdout).toContain('first 200');
        expect(ran.stdout).not.toContain('after 200');
        expect(ran.stdout).toContain('done');
        expect(server.reached()).toBe(1);
        expect(ran.stderr).toMatch(/src\/late: Read-only file system/);
        expect(existsSync(join(context.project, 'src/late'))).toBe(false);
        expect(existsSync(join(context.project, 'plans/late'))).toBe(true);
        expect(treeDigest(join(context.project, 'src'))).toBe(before);
      } finally {
        server.close();
      }
    });

    it('the filter is not reachable: the command fails, and runs nowhere', async () => {
      const context = setup();
      const daemon = await startDaemon(context.env);
      const line = await sandboxed(context, 'eval "echo ran > plans/ran; echo ran"');
      await ended(daemon.child, 'SIGTERM');
      const ran = await runShellAsync(line, context.project, { ...process.env, ...context.env });
      expect(ran.code).toBe(126);
      expect(ran.stdout).toBe('');
      expect(ran.stderr).toMatch(/network filter .* is not running; the command did not run/);
      expect(existsSync(join(context.project, 'plans/ran'))).toBe(false);
    });

    it('a line edited to point at another filter, or to widen its domains, is not the sandboxed command', async () => {
      const context = setup();
      await startDaemon(context.env);
      const command = 'curl -s http://example.com/';
      const line = await sandboxed(context, command);
      const options = {
        root: context.project,
        writable: ['plans/', 'handoff/'],
        network: [ALLOWED],
      };
      // As made: recognised, also where the hook runs without the daemon (made again, compared).
      expect(sandboxedUnder(context.home, { command: line }, options)).toBe(command);
      const filter = /'([^']*\/network-[0-9a-f]+)'/.exec(line)?.[1] as string;
      const edits = [
        line.replace(filter, `${filter.slice(0, -1)}0`),
        line.replace(filter, join(context.project, 'plans', 'filter')),
        line.replace(' -p ', ' '),
      ];
      for (const edited of edits) {
        expect(edited).not.toBe(line);
        expect(sandboxedUnder(context.home, { command: edited }, options)).toBeUndefined();
        expect(
          sandboxedUnder(context.home, { command: edited }, { ...options, network: ['*'] }),
        ).toBeUndefined();
        // Through the hook it is a command like any other: sandboxed again, not let through.
        expect(await answer(context, edited)).not.toBe(edited);
      }
    });
  },
);
