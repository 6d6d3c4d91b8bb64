import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { DAEMON_ACK, DAEMON_PROTOCOL } from '../../../src/host/daemon/protocol.js';
import { built } from '../../support/run-bin.js';
import { bash, startDaemon, withEnv } from './daemon-support.js';
import { type Recorded, recorded, SLOW } from './fault-support.js';

/**
 * One request as the hook client sends it, over a connection of its own: resolves with all the
 * daemon wrote once it closes. `leave` ends the client's side once the daemon has acknowledged:
 * a client that gives up.
 */
function request(
  r: Recorded,
  session: string,
  command: string,
  options: { deadline?: number; leave?: boolean } = {},
): Promise<string> {
  const line = JSON.stringify({
    v: DAEMON_PROTOCOL,
    agent: 'claude-code',
    stdin: JSON.stringify(bash(r.project, session, command)),
    cwd: r.project,
    env: withEnv(r.env),
    ...(options.deadline === undefined ? {} : { deadline: options.deadline }),
  });
  return new Promise((resolve, reject) => {
    const connection = connect(r.socket);
    let text = '';
    connection.setEncoding('utf8');
    connection.on('error', reject);
    connection.on('data', (chunk: string) => {
      text += chunk;
      if (options.leave && text.startsWith(`${DAEMON_ACK}\n`)) connection.end();
    });
    connection.on('close', () => resolve(text));
    connection.write(`${line}\n`);
  });
}

const decided = (text: string) => text.split('\n').filter(Boolean).slice(1);

describe.runIf(built)('the hook daemon does not start work whose client has gone', () => {
  it("neither an event past its client's deadline, nor one queued behind its session's slow event whose client left meanwhile", async () => {
    const r = recorded();
    await startDaemon(r.env);
    // Past its deadline when it arrives: acknowledged, and closed without an answer.
    expect(await request(r, 'late', 'late', { deadline: Date.now() - 1 })).toBe(`${DAEMON_ACK}\n`);

    // A session's events are answered in order: the second waits for the slow first, and its
    // client leaves before its turn comes.
    const slow = request(r, 'queue', SLOW);
    await new Promise((later) => setTimeout(later, 500));
    expect(await request(r, 'queue', 'left', { leave: true })).toBe(`${DAEMON_ACK}\n`);
    expect(decided(await slow)).toHaveLength(1);
    // And the session goes on: its next event is answered.
    expect(decided(await request(r, 'queue', 'next'))).toHaveLength(1);

    expect(r.decisions().map(({ command }) => command)).toEqual([SLOW, 'next']);
  });
});
