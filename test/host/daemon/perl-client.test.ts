import { execFileSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { hermesHome } from '../../../src/config/locations.js';
import { daemonKey, daemonSocketPath } from '../../../src/host/daemon/protocol.js';
import { tree } from '../../support/fixtures.js';
import { built } from '../../support/run-bin.js';
import { reasonOf, startDaemon, withEnv } from './daemon-support.js';
import { decidedBy, stopDaemon } from './fault-support.js';
import {
  ACK,
  closeServers,
  fake,
  perl,
  perlSocket,
  setup,
  version,
} from './perl-client-support.js';

/**
 * The Perl hook client (src/host/daemon/hook-client.pl, docs/command-hooks.md "The Perl hook
 * client"): the installed program asks a warm daemon through it, and Node starts only when it
 * hands the call over. The program here runs a package whose `bin/hermes.js` writes a line for
 * every Node it starts (and the two variables by which the client hands a call over) before it
 * runs the real one: whether Node ran, and how, is read from there.
 */
afterEach(closeServers);

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

  it("answers a session's start with nothing while a daemon is being started, as hermes' client does", async () => {
    const s = setup();
    const socket = perlSocket(s.env);
    writeFileSync(
      socket.replace(/\.sock$/, '.starting'),
      `${JSON.stringify({ pid: process.pid, at: Date.now() })}\n`,
    );
    const event = (fields: Record<string, string>) =>
      JSON.stringify({
        session_id: 's1',
        transcript_path: '/dev/null',
        cwd: s.r.project,
        ...fields,
      });
    const start = await s.send(event({ hook_event_name: 'SessionStart', source: 'startup' }));
    expect(start).toEqual({ code: 0, stdout: '', stderr: '' });
    expect(s.nodes()).toEqual([]);
    // An event that only names it is not one: it waits for the daemon, which is asked it.
    const prompt = s.send(event({ hook_event_name: 'UserPromptSubmit', prompt: 'SessionStart' }));
    await new Promise((tick) => setTimeout(tick, 300));
    const daemon = fake(socket, (connection) =>
      connection.end(`${ACK}{"v":3,"stdout":"answered","stderr":"","exitCode":0}\n`),
    );
    expect(await prompt).toEqual({ code: 0, stdout: 'answered', stderr: '' });
    expect(daemon.lines.map((line) => JSON.parse(JSON.parse(line).stdin).hook_event_name)).toEqual([
      'UserPromptSubmit',
    ]);
    expect(s.nodes()).toEqual([]);
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
        'the Perl hook client hands the call to hermes: no daemon serves, and none is being started',
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
