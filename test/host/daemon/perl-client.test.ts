import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { hermesHome } from '../../../src/config/locations.js';
import { wrappedHookCommand } from '../../../src/host/command-hook/hook-wrapper.js';
import { daemonKey, daemonSocketPath } from '../../../src/host/daemon/protocol.js';
import { tree } from '../../support/fixtures.js';
import { type Answer, bin, built, root, runProcess } from '../../support/run-bin.js';
import { bash, reasonOf, startDaemon, withEnv } from './daemon-support.js';
import { decidedBy, eventually, type Recorded, recorded, stopDaemon } from './fault-support.js';

/**
 * The Perl hook client (src/host/daemon/hook-client.pl, docs/command-hooks.md "The Perl hook
 * client"): the installed program asks a warm daemon through it, and Node starts only when it
 * hands the call over. The program here runs a package whose `bin/hermes.js` writes a line for
 * every Node it starts (and the two variables by which the client hands a call over) before it
 * runs the real one: whether Node ran, and how, is read from there.
 */
const client = join(root, 'dist', 'hook-client.pl');
const version = (
  JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }
).version;
const perl = existsSync('/usr/bin/perl');

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((done) => server.close(done))));
});

interface Setup {
  r: Recorded;
  /** The hook's environment: the recorder's, without its NODE_OPTIONS (the program unsets it). */
  env: Record<string, string | undefined>;
  /** One line per Node the program started: `HERMES_DAEMON HERMES_HOOK_DEADLINE_MS`. */
  nodes(): string[];
  /**
   * A Bash call of `command` through the installed program of `agent` (the user form), as the
   * event `name` (PreToolUse, or PostToolUse with its result).
   */
  call(
    command: string,
    extra?: Record<string, string | undefined>,
    agent?: string,
    name?: string,
  ): Promise<Answer>;
}

function setup(extra: Record<string, string> = {}): Setup {
  const r = recorded(extra);
  const env: Record<string, string | undefined> = { ...r.env, NODE_OPTIONS: undefined };
  const log = join(r.home, 'nodes.log');
  const pkg = tree({
    // A Node that is to answer in-process fails once the test has made `fail` (a broken install).
    'bin/hermes.js': `if (process.env.HERMES_DAEMON === '0' && require('node:fs').existsSync(${JSON.stringify(join(r.home, 'fail'))})) process.exit(1);\nrequire('node:fs').appendFileSync(${JSON.stringify(log)}, (process.env.HERMES_DAEMON ?? '-') + ' ' + (process.env.HERMES_HOOK_DEADLINE_MS ?? '-') + '\\n');\nrequire(${JSON.stringify(bin)});\n`,
  });
  mkdirSync(join(pkg, 'dist'));
  symlinkSync(client, join(pkg, 'dist', 'hook-client.pl'));
  const pins = { HERMES_HOME: r.home, HERMES_DAEMON_DIR: env.HERMES_DAEMON_DIR as string };
  const call = (
    command: string,
    more: Record<string, string | undefined> = {},
    agent = 'claude-code',
    name = 'PreToolUse',
  ) =>
    runProcess(
      '/bin/sh',
      [
        '-c',
        wrappedHookCommand(
          agent,
          [process.execPath, join(pkg, 'bin', 'hermes.js'), 'hook', agent],
          pins,
        ),
      ],
      {
        env: { ...env, ...more },
        cwd: r.project,
        stdin: JSON.stringify(
          name === 'PreToolUse'
            ? bash(r.project, 's1', command)
            : { ...bash(r.project, 's1', command), hook_event_name: name, tool_response: {} },
        ),
      },
    );
  const nodes = () =>
    existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter(Boolean) : [];
  return { r, env, nodes, call };
}

/** The socket the Perl client asks (its `--socket`) with this process's environment and `env` on top. */
function perlSocket(env: Record<string, string | undefined>): string {
  return execFileSync(
    '/usr/bin/perl',
    ['-T', '-C0', '--', client, 'claude-code', process.execPath, '--socket'],
    {
      env: withEnv(env),
      encoding: 'utf8',
    },
  ).trim();
}

/** A stand-in daemon at `socket` that does `serve` with each connection's first line. */
function fake(
  socket: string,
  serve: (connection: Socket, line: string) => void,
): { lines: string[] } {
  const lines: string[] = [];
  const server = createServer((connection) => {
    let text = '';
    connection.on('error', () => {});
    connection.on('data', (chunk) => {
      text += chunk;
      const end = text.indexOf('\n');
      if (end >= 0 && lines.length < 100) {
        const line = text.slice(0, end);
        text = text.slice(end + 1);
        lines.push(line);
        serve(connection, line);
      }
    });
  });
  server.listen(socket);
  servers.push(server);
  return { lines };
}

const ACK = '{"v":3,"ack":true}\n';

describe.runIf(built && perl)('the Perl hook client', () => {
  it('names the socket the Node client names, for any value of the keyed variables', () => {
    const home = tree({});
    const values = [
      '',
      'x',
      'é ü 漢 🙂',
      'a=b\tc',
      ...[55, 56, 63, 64, 119, 120, 200].map((n) => 'v'.repeat(n)),
    ];
    const homes = [home, `${home}/`, `${home}/./x/..`];
    for (const [at, value] of values.entries()) {
      const overrides = {
        HERMES_HOME: homes[at % homes.length],
        HERMES_DAEMON_DIR: '/tmp/hd-names//sub/',
        HERMES_DAEMON: undefined,
        HERMES_ANY: value,
        LC_ALL: 'C.UTF-8',
        TZ: value,
        NODE_OPTIONS: undefined,
        OTEL_SERVICE_NAME: at % 2 === 0 ? value : undefined,
      };
      const env = withEnv(overrides);
      const node = daemonSocketPath(daemonKey(hermesHome(env.HERMES_HOME), version, env), env);
      expect(perlSocket(overrides), `value ${JSON.stringify(value)}`).toBe(node);
    }
  });

  it('answers from the warm daemon without starting Node, the same answer hermes gives', async () => {
    const s = setup();
    const daemon = await startDaemon(s.env);
    for (const command of ['one', 'two', 'three']) {
      const answer = await s.call(command);
      expect(answer.code, answer.stderr).toBe(0);
      expect(reasonOf(answer)).toBe(decidedBy(command));
    }
    expect(s.nodes()).toEqual([]);
    expect(s.r.decisions().map(({ pid }) => pid)).toEqual(Array(3).fill(daemon.child.pid));
  });

  it('is not turned by Perl’s variables in the hook’s environment (a project can set them)', async () => {
    const s = setup();
    await startDaemon(s.env);
    const evil = tree({});
    const marker = join(evil, 'loaded');
    writeFileSync(join(evil, 'Evil.pm'), `open my $f, '>>', '${marker}'; print $f "x\\n"; 1;\n`);
    const hostile = {
      PERL5OPT: '-MEvil -d',
      PERL5LIB: evil,
      PERLLIB: evil,
      PERL5DB: `BEGIN { open my $f, '>>', '${marker}' }`,
      PERLIO: ':encoding(UTF-16LE)',
      PERL_UNICODE: 'SDAL',
    };
    const plain = await s.call('plain');
    const answer = await s.call('plain', hostile);
    expect(answer.code, answer.stderr).toBe(0);
    expect(answer.stdout).toBe(plain.stdout);
    expect(reasonOf(answer)).toBe(decidedBy('plain'));
    expect(existsSync(marker)).toBe(false);
    expect(s.nodes()).toEqual([]);
  });

  it('leaves the call to hermes when the daemon is turned off, or none serves', async () => {
    const s = setup();
    const off = await s.call('off', { HERMES_DAEMON: '0' });
    expect(reasonOf(off)).toBe(decidedBy('off'));
    expect(s.nodes()).toEqual(['0 -']);
    try {
      // No daemon: hermes' own client starts one, and the call is answered in-process meanwhile.
      const cold = await s.call('cold');
      expect(reasonOf(cold)).toBe(decidedBy('cold'));
      expect(s.nodes()).toEqual(['0 -', '- -']);
    } finally {
      await stopDaemon(s.env);
    }
  });

  it('waits for a daemon another hook is starting, and asks it: no Node of its own', async () => {
    const s = setup();
    const socket = perlSocket(s.env);
    // The lock a starting hook holds (markers.ts `takeStart`), held by a process that lives.
    writeFileSync(
      socket.replace(/\.sock$/, '.starting'),
      `${JSON.stringify({ pid: process.pid, at: Date.now() })}\n`,
    );
    const call = s.call('waited');
    await new Promise((tick) => setTimeout(tick, 300));
    const daemon = await startDaemon(s.env);
    const answer = await call;
    expect(reasonOf(answer)).toBe(decidedBy('waited'));
    expect(s.nodes()).toEqual([]);
    expect(s.r.decisions().map(({ pid }) => pid)).toEqual([daemon.child.pid]);
  });

  it('a start whose process is gone is not waited for: hermes answers', async () => {
    const s = setup({ HERMES_DEBUG: '1' });
    const socket = perlSocket(s.env);
    const gone = execFileSync(process.execPath, ['-p', 'process.pid'], { encoding: 'utf8' }).trim();
    const lock = socket.replace(/\.sock$/, '.starting');
    try {
      writeFileSync(lock, `${JSON.stringify({ pid: Number(gone), at: Date.now() })}\n`);
      const answer = await s.call('gone');
      expect(reasonOf(answer)).toBe(decidedBy('gone'));
      expect(answer.stderr).toContain(
        'the Perl hook client leaves the call to hermes: no daemon serves, and none is being started',
      );
      expect(s.nodes()).toEqual(['- -']);
      // Taken by a process that lives, it is waited for.
      writeFileSync(lock, `${JSON.stringify({ pid: process.pid, at: Date.now() })}\n`);
      const waited = await s.call('waited');
      expect(reasonOf(waited)).toBe(decidedBy('waited'));
      expect(waited.stderr).toContain('the daemon being started is not serving yet');
    } finally {
      await stopDaemon(s.env);
    }
  });

  it('a daemon that takes the event and closes: answered in-process, never asked again', async () => {
    const s = setup();
    const daemon = fake(perlSocket(s.env), (connection) => connection.end(ACK));
    const answer = await s.call('closed');
    expect(reasonOf(answer)).toBe(decidedBy('closed'));
    expect(daemon.lines).toHaveLength(1);
    expect(JSON.parse(daemon.lines[0] as string)).toMatchObject({
      v: 3,
      agent: 'claude-code',
      cwd: s.r.project,
      stdin: JSON.stringify(bash(s.r.project, 's1', 'closed')),
    });
    const [node] = s.nodes();
    expect(s.nodes()).toHaveLength(1);
    const [daemonOff, deadline] = (node as string).split(' ');
    expect(daemonOff).toBe('0');
    // What was left of the deadline (25 s), never more.
    expect(Number(deadline)).toBeGreaterThan(20_000);
    expect(Number(deadline)).toBeLessThanOrEqual(25_000);
  });

  it('a daemon that answers something that is not an answer: answered in-process', async () => {
    const s = setup();
    const daemon = fake(perlSocket(s.env), (connection) =>
      connection.end(`${ACK}{"v":3,"stdout":1}\n`),
    );
    const answer = await s.call('malformed');
    expect(reasonOf(answer)).toBe(decidedBy('malformed'));
    expect(daemon.lines).toHaveLength(1);
    expect(s.nodes().map((line) => line.split(' ')[0])).toEqual(['0']);
  });

  it('a daemon that acknowledges and never answers: in-process within what is left of the deadline', async () => {
    const s = setup({ HERMES_HOOK_DEADLINE_MS: '4000' });
    const daemon = fake(perlSocket(s.env), (connection) => connection.write(ACK));
    const answer = await s.call('late');
    // The recorder's answer, or the framework's refusal past that deadline: a refusal either way.
    expect(JSON.parse(answer.stdout).hookSpecificOutput.permissionDecision).toBe('deny');
    expect(daemon.lines).toHaveLength(1);
    const [daemonOff, deadline] = (s.nodes()[0] as string).split(' ');
    expect(daemonOff).toBe('0');
    // Asked with 4 s, the daemon given 2 s: the rest, less the clock's second, is the answer's.
    expect(Number(deadline)).toBeGreaterThan(0);
    expect(Number(deadline)).toBeLessThanOrEqual(2_000);
  });

  it('a daemon that never acknowledges: handed to hermes whole, whose client finds it not serving', async () => {
    const s = setup();
    const daemon = fake(perlSocket(s.env), () => {});
    try {
      const answer = await s.call('silent');
      expect(reasonOf(answer)).toBe(decidedBy('silent'));
      expect(answer.stderr).toMatch(/did not acknowledge/);
      // Asked by both clients, once each; hermes' own client, not in-process from the start.
      expect(daemon.lines).toHaveLength(2);
      expect(s.nodes()).toEqual(['- -']);
      // The replacement hermes started takes the path; the marker, which names the stand-in's
      // socket, does not keep the Perl client from it.
      const socket = perlSocket(s.env);
      const marker = socket.replace(/\.sock$/, '.stuck');
      const marked = JSON.parse(readFileSync(marker, 'utf8')).ino;
      await eventually(() => (statSync(socket).ino !== marked ? true : undefined));
      expect(reasonOf(await s.call('replaced'))).toBe(decidedBy('replaced'));
      expect(existsSync(marker)).toBe(true);
      expect(s.nodes()).toEqual(['- -']);
    } finally {
      await stopDaemon(s.env);
    }
  });

  it('a hermes that then fails: the event it was handed is answered by its own name', async () => {
    const s = setup();
    writeFileSync(join(s.r.home, 'fail'), '');
    fake(perlSocket(s.env), (connection) => connection.end(ACK));
    // Not a tool call: a message, not a refusal. The agent's stdin was read to its end by the
    // client; the program answers from the copy it was handed.
    const after = await s.call('after', {}, 'claude-code', 'PostToolUse');
    expect(after.code).toBe(0);
    expect(JSON.parse(after.stdout)).toEqual({
      systemMessage: expect.stringMatching(/^Hermes: hermes ended with exit code 1/),
    });
    const call = await s.call('call');
    expect(JSON.parse(call.stdout).hookSpecificOutput).toMatchObject({
      hookEventName: 'PreToolUse',
      permissionDecision: 'deny',
    });
  });

  it('a connection that never completes: ended past the deadline, and the call refused', async () => {
    const s = setup({ HERMES_HOOK_DEADLINE_MS: '1000' });
    const socket = perlSocket(s.env);
    // A listener that takes one pending connection and accepts none: the next connect waits.
    const held = spawn(
      'python3',
      [
        '-c',
        'import socket,sys,time\ns=socket.socket(socket.AF_UNIX)\ns.bind(sys.argv[1])\ns.listen(0)\nprint("ready",flush=True)\ntime.sleep(60)',
        socket,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    try {
      await new Promise((ready) => held.stdout?.once('data', ready));
      const first = connect(socket);
      first.on('error', () => {});
      await new Promise((done) => first.once('connect', done));
      const answer = await s.call('held');
      expect(JSON.parse(answer.stdout).hookSpecificOutput).toMatchObject({
        permissionDecision: 'deny',
      });
      expect(answer.stderr).toMatch(/exit code 142/);
      expect(s.nodes()).toEqual([]);
      first.destroy();
    } finally {
      held.kill();
    }
  });

  it('prints the answer’s bytes as the Node client does, and passes its exit code on', async () => {
    const s = setup();
    const stdout = '{"x":"é🙂\ud800\\"\\n"}\n';
    const text = JSON.stringify({ v: 3, stdout, stderr: 'a notice\n', exitCode: 3 });
    fake(perlSocket(s.env), (connection) => connection.end(`${ACK}${text}\n`));
    // The Hermes agent's program passes its notice code on with the answer.
    const answer = await s.call('bytes', {}, 'hermes-agent');
    expect(answer.code).toBe(3);
    expect(answer.stdout).toBe(Buffer.from(stdout).toString('utf8'));
    expect(answer.stderr).toBe('a notice\n');
    expect(s.nodes()).toEqual([]);
  });
});
