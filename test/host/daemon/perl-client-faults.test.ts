import { spawn } from 'node:child_process';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { built } from '../../support/run-bin.js';
import { bash, reasonOf } from './daemon-support.js';
import { decidedBy, eventually, stopDaemon } from './fault-support.js';
import { ACK, closeServers, fake, perl, perlSocket, setup } from './perl-client-support.js';

/**
 * The Perl hook client (src/host/daemon/hook-client.pl) against daemons that fail it: each way is
 * handed to hermes so that the call is answered once, within the deadline, or refused
 * (perl-client-support.ts records every Node the program starts).
 */
afterEach(closeServers);

describe.runIf(built && perl)('the Perl hook client, when the daemon fails it', () => {
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
});
