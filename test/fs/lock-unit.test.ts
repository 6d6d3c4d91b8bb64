import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { UnitLocks } from '../../src/fs/lock-unit.js';
import { tree } from '../support/fixtures.js';
import { distModule, runNodeScript } from '../support/node-script.js';
import { built } from '../support/run-bin.js';

describe("a unit's locks, as its keeper removes them once it ended", () => {
  it('removes only each lock file that still holds the owner the unit wrote', () => {
    const dir = tree({ held: 'mine', 'taken-over': 'another owner', released: 'mine' });
    const locks = new UnitLocks();
    for (const name of ['held', 'taken-over', 'released', 'never-made'])
      locks.taking(join(dir, name), 'mine');
    locks.released(join(dir, 'released'), 'mine');
    expect(locks.removeAll()).toEqual([join(dir, 'held')]);
    expect(existsSync(join(dir, 'held'))).toBe(false);
    expect(readFileSync(join(dir, 'taken-over'), 'utf8')).toBe('another owner');
    expect(readFileSync(join(dir, 'released'), 'utf8')).toBe('mine');
  });

  it.runIf(built)(
    'hears of a lock a worker thread takes before it makes it, and removes it once the thread was ended looping',
    async () => {
      const lockFile = join(tree(), 'a.lock');
      const script = runNodeScript(`
        import { Worker } from 'node:worker_threads';
        import { existsSync, readFileSync } from 'node:fs';
        import { UnitLocks } from ${distModule('fs/lock-unit.js')};
        const locks = new UnitLocks();
        const worker = new Worker(\`
          (async () => {
            const { parentPort } = await import('node:worker_threads');
            const { holdLocksIn } = await import(${distModule('fs/lock-unit.js')});
            const { acquireOwnedLock } = await import(${distModule('fs/owned-lock.js')});
            holdLocksIn({
              name: 'test worker',
              taking: (path, text) => parentPort.postMessage({ path, text, held: true }),
              released: (path, text) => parentPort.postMessage({ path, text, held: false }),
            });
            await acquireOwnedLock(${JSON.stringify(lockFile)});
            for (;;);
          })();\`, { eval: true });
        worker.on('message', (m) => (m.held ? locks.taking(m.path, m.text) : locks.released(m.path, m.text)));
        while (!existsSync(${JSON.stringify(lockFile)})) await new Promise((r) => setTimeout(r, 5));
        console.log(JSON.parse(readFileSync(${JSON.stringify(lockFile)}, 'utf8')).unit);
        await worker.terminate();
        console.log(JSON.stringify(locks.removeAll()));
      `);
      expect(await script.exited, script.stderr()).toBe(0);
      expect(script.stdout().trim().split('\n')).toEqual([
        'test worker',
        JSON.stringify([lockFile]),
      ]);
      expect(existsSync(lockFile)).toBe(false);
    },
    30_000,
  );
});
