import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { hermesHome } from '../../../src/config/locations.js';
import {
  DAEMON_ACK,
  DAEMON_PROTOCOL,
  type DaemonRequest,
  daemonKey,
  daemonSocketPath,
} from '../../../src/host/daemon/protocol.js';
import { tree } from '../../support/fixtures.js';
import { built, root, runHook } from '../../support/run-bin.js';

const version = (
  JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }
).version;

/**
 * How a fake daemon answers one connection: a line to write (after `delayMs`), or nothing; it
 * acknowledges the request first, as a daemon does, unless `silent`.
 */
type Behaviour = { line?: string; delayMs?: number; silent?: boolean; pieceBytes?: number };

interface FakeDaemon {
  requests: DaemonRequest[];
  /** Connections the client closed before the fake answered. */
  abandoned: number;
}

const servers: Server[] = [];
const started: number[] = [];

afterEach(async () => {
  for (const server of servers.splice(0)) await new Promise((done) => server.close(done));
  // A daemon a fallback started (when `hermes daemon run` exists) must not outlive its test.
  for (const pid of started.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {}
  }
});

/**
 * A user's setup as `hermes hook` sees it: a home with workflow-guard, a project, a folder for
 * the daemon sockets (0700, as the daemon makes it), and a preload that records every Node
 * process started with this environment, so a daemon start can be seen.
 */
function setup() {
  const home = tree({
    'config.yaml': `extensions:\n  paths: [hermes-extensions/workflow-guard]\n`,
  });
  const project = tree({ '.git/HEAD': '' });
  const work = tree({
    'record.cjs': `require('node:fs').appendFileSync(__dirname + '/processes.log', JSON.stringify({ pid: process.pid, args: process.argv.slice(2) }) + '\\n');`,
  });
  const sockets = join(work, 'sockets');
  mkdirSync(sockets, { mode: 0o700 });
  const env: Record<string, string | undefined> = {
    HERMES_HOME: home,
    HOME: home,
    HERMES_DAEMON: undefined,
    HERMES_DAEMON_DIR: sockets,
    NODE_OPTIONS: `--require ${join(work, 'record.cjs')}`,
  };
  const event = (session: string) => ({
    session_id: session,
    transcript_path: '/dev/null',
    cwd: project,
    permission_mode: 'default',
    hook_event_name: 'PreToolUse',
    tool_name: 'Edit',
    tool_use_id: 'toolu_1',
    tool_input: { file_path: join(project, 'src/login.ts'), old_string: 'a', new_string: 'b' },
  });
  /** `hermes hook claude-code` as the agent runs it, in this setup. */
  const hook = (
    session: string,
    extra: Record<string, string | undefined> = {},
    agent: 'claude-code' | 'codex' = 'claude-code',
  ) => runHook(agent, home, event(session), { ...env, ...extra } as Record<string, string>);
  /** The daemon the hook would reach: its socket is named after this exact environment. */
  const socketFor = (extra: Record<string, string | undefined> = {}) => {
    const childEnv: NodeJS.ProcessEnv = { ...process.env, ...env, ...extra };
    for (const [key, value] of Object.entries(childEnv))
      if (value === undefined) delete childEnv[key];
    return daemonSocketPath(daemonKey(hermesHome(home), version, childEnv), childEnv);
  };
  const daemonStarts = () => {
    const log = join(work, 'processes.log');
    if (!existsSync(log)) return [];
    const lines = readFileSync(log, 'utf8').trim().split('\n');
    return lines
      .map((line) => JSON.parse(line) as { pid: number; args: string[] })
      .filter(({ args }) => args.join(' ').endsWith('daemon run'));
  };
  return { home, sockets, hook, socketFor, daemonStarts };
}

async function fakeDaemon(path: string, behaviour: Behaviour): Promise<FakeDaemon> {
  const fake: FakeDaemon = { requests: [], abandoned: 0 };
  const server = createServer((socket: Socket) => {
    let buffer = '';
    let closed = false;
    socket.on('error', () => {});
    socket.on('close', () => {
      closed = true;
    });
    socket.setEncoding('utf8').on('data', (chunk: string) => {
      buffer += chunk;
      if (!buffer.includes('\n')) return;
      fake.requests.push(JSON.parse(buffer.slice(0, buffer.indexOf('\n'))));
      if (!behaviour.silent) socket.write(`${DAEMON_ACK}\n`);
      if (behaviour.line === undefined) return socket.end();
      const line = behaviour.line;
      setTimeout(() => {
        if (closed) fake.abandoned++;
        else if (behaviour.pieceBytes === undefined) socket.end(line);
        else writeInPieces(socket, Buffer.from(line), behaviour.pieceBytes);
      }, behaviour.delayMs ?? 0);
    });
  });
  servers.push(server);
  await new Promise<void>((listening) => server.listen(path, listening));
  return fake;
}

/** Each piece in a write of its own, after the one before has gone: the client reads many. */
function writeInPieces(socket: Socket, bytes: Buffer, size: number): void {
  if (bytes.length <= size) return void socket.end(bytes);
  socket.write(bytes.subarray(0, size), () =>
    setTimeout(() => writeInPieces(socket, bytes.subarray(size), size), 1),
  );
}

/**
 * A preload that writes, as the process exits, which of Node's own modules it loaded (one JSON
 * line per process), and the NODE_OPTIONS that adds it to the setup's.
 */
function recordModules(sockets: string, options = '') {
  const work = dirname(sockets);
  const log = join(work, 'modules.log');
  const preload = join(work, 'modules.cjs');
  writeFileSync(
    preload,
    `process.on('exit', () => require('node:fs').appendFileSync(${JSON.stringify(log)}, JSON.stringify(process.moduleLoadList) + '\\n'));`,
  );
  const loaded = () =>
    readFileSync(log, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as string[]);
  return {
    env: { NODE_OPTIONS: `--require ${join(work, 'record.cjs')} --require ${preload} ${options}` },
    loaded,
  };
}

const answerLine = (answer: object) => `${JSON.stringify({ v: DAEMON_PROTOCOL, ...answer })}\n`;

async function eventually<T>(read: () => T[], timeoutMs = 10_000): Promise<T[]> {
  const until = Date.now() + timeoutMs;
  while (read().length === 0 && Date.now() < until)
    await new Promise((tick) => setTimeout(tick, 50));
  return read();
}

describe.runIf(built)('hermes hook through the hook daemon', () => {
  it.each(['claude-code', 'codex'] as const)(
    'prints the daemon answer as it is, and sends it the %s event as the agent wrote it',
    async (agent) => {
      const s = setup();
      const fake = await fakeDaemon(s.socketFor(), {
        line: answerLine({ stdout: '{"from":"daemon"}\n', stderr: 'a note\n', exitCode: 2 }),
      });
      const answer = await s.hook('s1', {}, agent);
      expect(answer).toEqual({ code: 2, stdout: '{"from":"daemon"}\n', stderr: 'a note\n' });
      expect(fake.requests).toHaveLength(1);
      const [request] = fake.requests;
      expect(request).toMatchObject({ v: DAEMON_PROTOCOL, agent, cwd: process.cwd() });
      // The hook's environment, with which the daemon answers the event.
      expect(request?.env).toMatchObject({ HERMES_HOME: s.home, HERMES_DAEMON_DIR: s.sockets });
      expect(JSON.parse(request?.stdin ?? '')).toMatchObject({
        session_id: 's1',
        tool_name: 'Edit',
      });
      expect(s.daemonStarts()).toEqual([]);
    },
  );

  // Loading node:net starts Node's stream machinery, most of what a call through a warm daemon
  // cost over a bare Node start (BENCHMARKS.md); unix-connection.ts talks to the socket's handle.
  it("answers through the daemon without loading Node's net or stream modules", async () => {
    const s = setup();
    const modules = recordModules(s.sockets);
    await fakeDaemon(s.socketFor(modules.env), {
      line: answerLine({ stdout: '{"from":"daemon"}\n', stderr: '', exitCode: 0 }),
    });
    const answer = await s.hook('s1', modules.env);
    expect(answer).toEqual({ code: 0, stdout: '{"from":"daemon"}\n', stderr: '' });
    const [loaded] = modules.loaded();
    expect(loaded).not.toContain('NativeModule net');
    expect(loaded).not.toContain('NativeModule stream');
  });

  it('prints an answer that arrives in many small reads whole, its characters split between them', async () => {
    const s = setup();
    const stdout = `${'é€😀 '.repeat(20_000)}\n`;
    const fake = await fakeDaemon(s.socketFor(), {
      line: answerLine({ stdout, stderr: 'ü\n', exitCode: 2 }),
      pieceBytes: 4093,
    });
    expect(await s.hook('s1')).toEqual({ code: 2, stdout, stderr: 'ü\n' });
    expect(fake.requests).toHaveLength(1);
  });

  it('answers through the daemon with node:net, and prints no warning, when Node warns of process.binding (--pending-deprecation)', async () => {
    const s = setup();
    const modules = recordModules(s.sockets, '--pending-deprecation');
    const fake = await fakeDaemon(s.socketFor(modules.env), {
      line: answerLine({ stdout: '{"from":"daemon"}\n', stderr: '', exitCode: 0 }),
    });
    const answer = await s.hook('s1', modules.env);
    expect(answer).toEqual({ code: 0, stdout: '{"from":"daemon"}\n', stderr: '' });
    expect(fake.requests).toHaveLength(1);
    expect(modules.loaded()[0]).toContain('NativeModule net');
  });

  it.each([
    ['no socket folder yet', true],
    ['a socket folder without the socket', false],
  ])(
    'answers in-process when no daemon runs (%s), as with HERMES_DAEMON=0, and starts one',
    async (_what, noFolder) => {
      const s = setup();
      if (noFolder) rmSync(s.sockets, { recursive: true });
      const inProcess = await s.hook('s1', { HERMES_DAEMON: '0' });
      expect(JSON.parse(inProcess.stdout).hookSpecificOutput.permissionDecision).toBe('deny');
      expect(s.daemonStarts()).toEqual([]);

      const fallback = await s.hook('s2');
      expect(fallback).toEqual(inProcess);
      const starts = await eventually(s.daemonStarts);
      started.push(...starts.map(({ pid }) => pid));
      expect(starts).toHaveLength(1);
    },
  );

  it("answers in-process when nothing listens on the socket (a killed daemon's), and starts one", async () => {
    const s = setup();
    const socket = s.socketFor();
    // A daemon killed while listening leaves its socket behind: connecting to it is refused.
    const killed = spawnSync(process.execPath, [
      '-e',
      `require('node:net').createServer().listen(${JSON.stringify(socket)}, () => process.kill(process.pid, 'SIGKILL'))`,
    ]);
    expect(killed.signal).toBe('SIGKILL');
    expect(statSync(socket).isSocket()).toBe(true);
    const inProcess = await s.hook('s1', { HERMES_DAEMON: '0' });
    expect(await s.hook('s2')).toEqual(inProcess);
    const starts = await eventually(s.daemonStarts);
    started.push(...starts.map(({ pid }) => pid));
    expect(starts).toHaveLength(1);
  });

  it('answers in-process, once, when the daemon does not answer in time', async () => {
    const s = setup();
    // 8 s to the deadline: the daemon gets 5 s, the in-process answer the 3 s left.
    const deadline = { HERMES_HOOK_DEADLINE_MS: '8000' };
    const late = answerLine({ stdout: 'late\n', stderr: '', exitCode: 0 });
    const fake = await fakeDaemon(s.socketFor(deadline), { line: late, delayMs: 6_500 });
    const inProcess = await s.hook('s1', { ...deadline, HERMES_DAEMON: '0' });
    const startedAt = Date.now();
    const fallback = await s.hook('s2', deadline);
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(4_900);
    expect(fallback).toEqual(inProcess);
    expect(fake.requests).toHaveLength(1);
    // The daemon's late answer (6.5 s after the request reached it, whenever a loaded machine let
    // that be) found the connection closed: no second answer anywhere.
    expect(await eventually(() => (fake.abandoned > 0 ? [fake.abandoned] : []))).toEqual([1]);
    expect(s.daemonStarts()).toEqual([]);
  });

  it('answers in-process at once when the daemon takes the call but does not acknowledge it; marks it, so later calls skip it, and starts one daemon', async () => {
    const s = setup();
    const socket = s.socketFor();
    const fake = await fakeDaemon(socket, {
      silent: true,
      line: answerLine({ stdout: 'late\n', stderr: '', exitCode: 0 }),
      delayMs: 60_000,
    });
    const fakeSocket = statSync(socket).ino;
    const inProcess = await s.hook('s1', { HERMES_DAEMON: '0' });
    const fallback = await s.hook('s2');
    expect(fallback.stdout).toBe(inProcess.stdout);
    expect(fallback.stderr).toMatch(
      new RegExp(`hermes: the hook daemon at ${socket} did not acknowledge the call within 500 ms`),
    );
    expect(fake.requests).toHaveLength(1);
    // The marker names the socket found (the replacement may have taken the path since).
    expect(JSON.parse(readFileSync(socket.replace(/\.sock$/, '.stuck'), 'utf8'))).toMatchObject({
      ino: fakeSocket,
    });
    // Skipped from now on: the next call does not ask it again (nor tell it again).
    const next = await s.hook('s3');
    expect(next.stdout).toBe(inProcess.stdout);
    expect(next.stderr).not.toMatch(/did not acknowledge/);
    expect(fake.requests).toHaveLength(1);
    const starts = await eventually(s.daemonStarts);
    started.push(...starts.map(({ pid }) => pid));
    expect(starts).toHaveLength(1);
  });

  it.each([
    ['a line that is not JSON', 'allow\n'],
    [
      'another protocol version',
      answerLine({ v: DAEMON_PROTOCOL + 1, stdout: '', stderr: '', exitCode: 0 }),
    ],
    [
      'an answer without stdout',
      `${JSON.stringify({ v: DAEMON_PROTOCOL, stderr: '', exitCode: 0 })}\n`,
    ],
    ['an exit code that is none', answerLine({ stdout: '', stderr: '', exitCode: 'zero' })],
    ['nothing before closing', undefined],
  ])('answers in-process when the daemon answers %s', async (_what, line) => {
    const s = setup();
    const fake = await fakeDaemon(s.socketFor(), line === undefined ? {} : { line });
    const inProcess = await s.hook('s1', { HERMES_DAEMON: '0' });
    const fallback = await s.hook('s2');
    expect(fake.requests).toHaveLength(1);
    expect(fallback).toEqual(inProcess);
    expect(JSON.parse(fallback.stdout).hookSpecificOutput.permissionDecision).toBe('deny');
  });

  it.each([
    ['open to everyone', 0o777],
    ['readable by its group', 0o750],
  ])('does not connect when the socket folder is %s', async (_what, mode) => {
    const s = setup();
    const fake = await fakeDaemon(s.socketFor(), {
      line: answerLine({
        stdout: 'from a socket others could have made\n',
        stderr: '',
        exitCode: 0,
      }),
    });
    chmodSync(s.sockets, mode);
    const inProcess = await s.hook('s1', { HERMES_DAEMON: '0' });
    expect(await s.hook('s2')).toEqual(inProcess);
    expect(fake.requests).toEqual([]);
  });

  it.runIf(process.getuid?.() === 0)(
    "does not connect when the socket folder is another user's",
    async () => {
      const s = setup();
      const fake = await fakeDaemon(s.socketFor(), {
        line: answerLine({ stdout: 'from another user\n', stderr: '', exitCode: 0 }),
      });
      chownSync(s.sockets, 4242, 4242);
      const inProcess = await s.hook('s1', { HERMES_DAEMON: '0' });
      expect(await s.hook('s2')).toEqual(inProcess);
      expect(fake.requests).toEqual([]);
    },
  );

  it('HERMES_DAEMON=0 answers in-process, neither asking a daemon nor starting one', async () => {
    const s = setup();
    const off = { HERMES_DAEMON: '0' };
    const fake = await fakeDaemon(s.socketFor(off), {
      line: answerLine({ stdout: 'from the daemon\n', stderr: '', exitCode: 0 }),
    });
    const answer = await s.hook('s1', off);
    expect(JSON.parse(answer.stdout).hookSpecificOutput.permissionDecision).toBe('deny');
    expect(fake.requests).toEqual([]);
    await new Promise((later) => setTimeout(later, 300));
    expect(s.daemonStarts()).toEqual([]);
  });
});
