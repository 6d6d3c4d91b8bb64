import { existsSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { built } from '../../support/run-bin.js';
import { reasonOf } from './daemon-support.js';
import { decidedBy, eventually, stopDaemon } from './fault-support.js';
import { closeServers, perl, perlSocket, type Setup, setup } from './perl-client-support.js';

/**
 * A session's start through the Perl hook client where no daemon serves (hook-client-start.pl):
 * answered at once with nothing, the daemon started by the client itself with the event handed
 * to it, as hermes' own client does (client.ts), so that the sessions that start at once start no
 * Node each. The package's `bin/hermes.js` here writes down each daemon it runs (`daemons`).
 */
afterEach(closeServers);

const sessionStart = (s: Setup) =>
  JSON.stringify({
    session_id: 's1',
    transcript_path: '/dev/null',
    cwd: s.r.project,
    hook_event_name: 'SessionStart',
    source: 'startup',
  });

describe.runIf(built && perl)("the Perl hook client at a session's start", () => {
  it('starts the daemon itself, hands it the event, and answers nothing', async () => {
    const s = setup();
    const lock = perlSocket(s.env).replace(/\.sock$/, '.starting');
    try {
      expect(await s.send(sessionStart(s))).toEqual({ code: 0, stdout: '', stderr: '' });
      expect(s.nodes()).toEqual([]);
      // The daemon loads the session's runtime with no other event asked of it (warm.ts).
      const [daemon] =
        (await eventually(() => (s.daemons().length > 0 ? s.daemons() : undefined))) ?? [];
      expect(
        await eventually(() => (s.r.loads().includes(daemon as number) ? true : undefined)),
      ).toBe(true);
      // It removed the start's lock as it began to listen, and answers the first prompt's call.
      expect(existsSync(lock)).toBe(false);
      const first = await s.call('first');
      expect(reasonOf(first)).toBe(decidedBy('first'));
      expect(s.r.decisions().map(({ pid }) => pid)).toEqual([daemon]);
      expect(s.r.loads()).toEqual([daemon]);
      expect(s.nodes()).toEqual([]);
      expect(s.daemons()).toEqual([daemon]);
    } finally {
      await stopDaemon(s.env);
    }
  });

  it('a start Perl refuses to make (a relative folder in PATH, under -T) leaves no lock: hermes starts one', async () => {
    const s = setup();
    const lock = perlSocket(s.env).replace(/\.sock$/, '.starting');
    try {
      const path = `node_modules/.bin:${process.env.PATH ?? ''}`;
      expect(await s.send(sessionStart(s), { PATH: path })).toEqual({
        code: 0,
        stdout: '',
        stderr: '',
      });
      expect(await eventually(() => (existsSync(lock) ? undefined : true))).toBe(true);
      expect(s.daemons()).toEqual([]);
      // The next call is hermes' own: its client starts the daemon and answers in-process.
      const next = await s.call('next', { PATH: path });
      expect(reasonOf(next)).toBe(decidedBy('next'));
      expect(s.nodes()).toEqual(['- -']);
    } finally {
      await stopDaemon(s.env);
    }
  });
});
