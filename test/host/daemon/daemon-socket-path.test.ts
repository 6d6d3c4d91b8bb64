import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { describe, expect, it } from 'vitest';
import { built, runBin } from '../../support/run-bin.js';
import { reasonOf } from './daemon-support.js';
import { decidedBy, hook, recorded } from './fault-support.js';

describe.runIf(built)('something that is not a socket at the daemon socket path', () => {
  it.each([
    ['a folder', (path: string) => mkdirSync(path)],
    ['a file', (path: string) => writeFileSync(path, 'mine\n')],
  ])(
    '(%s): each hook answers in-process and says so; no daemon is started, no file is left',
    async (_what, make) => {
      const r = recorded();
      make(r.socket);
      const folder = dirname(r.socket);
      const listing = readdirSync(folder).sort();
      for (const session of ['a', 'b', 'c']) {
        const answer = await hook(r, session, `call-${session}`);
        expect(reasonOf(answer)).toBe(decidedBy(`call-${session}`));
        // The reason names the path and what to do about it.
        expect(answer.stderr).toContain(`${r.socket} is not a socket`);
        expect(answer.stderr).toMatch(/remove it/);
      }
      // What a started daemon would have had the time to do by now (any start is recorded as the
      // process starts): nothing.
      await new Promise((later) => setTimeout(later, 1_500));
      expect(r.daemonStarts()).toEqual([]);
      expect(readdirSync(folder).sort()).toEqual(listing);

      // Started by hand, the daemon says why it cannot listen, and exits leaving nothing behind.
      const run = await runBin(['daemon', 'run'], r.env);
      expect(run.code).toBe(2);
      expect(run.stderr).toContain(`${r.socket} is not a socket`);
      expect(readdirSync(folder).sort()).toEqual(listing);
    },
  );
});
