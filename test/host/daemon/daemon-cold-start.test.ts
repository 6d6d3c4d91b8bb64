import { describe, expect, it } from 'vitest';
import { built } from '../../support/run-bin.js';
import { reasonOf } from './daemon-support.js';
import { decidedBy, eventually, hook, recorded, stopDaemon } from './fault-support.js';

const HOOKS = 20;

describe.runIf(built)('many hooks arriving with no daemon', () => {
  it('start exactly one daemon, and most are answered by it rather than each loading the framework', async () => {
    const r = recorded();
    try {
      const answers = await Promise.all(
        Array.from({ length: HOOKS }, (_, i) => hook(r, `s${i}`, `call-${i}`)),
      );
      answers.forEach((answer, i) => {
        expect(reasonOf(answer)).toBe(decidedBy(`call-${i}`));
      });
      const daemon = await eventually(() => r.daemonStarts()[0]);
      expect(daemon).toBeDefined();
      // Any other start would be recorded by now (as its process starts): there is none.
      await new Promise((later) => setTimeout(later, 1_500));
      expect(r.daemonStarts()).toEqual([daemon]);
      // The recorder loads once per runtime: in the daemon once, in each hook that answered
      // in-process once.
      const inProcess = r.loads().filter((pid) => pid !== daemon);
      expect(inProcess.length).toBeLessThan(HOOKS / 2);
      const byDaemon = r.decisions().filter(({ pid }) => pid === daemon);
      expect(byDaemon.length).toBe(HOOKS - inProcess.length);
    } finally {
      await stopDaemon(r.env);
    }
  });
});
