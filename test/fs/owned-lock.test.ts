import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  acquireOwnedLock,
  LockTimeoutError,
  tryAcquireOwnedLock,
  UNNAMED_OWNER_GRACE_MS,
} from '../../src/fs/owned-lock.js';
import { tree } from '../support/fixtures.js';
import { distModule, runNodeScript } from '../support/node-script.js';
import { built } from '../support/run-bin.js';

const OWNED_LOCK = distModule('fs/owned-lock.js');
const onLinux = existsSync('/proc/self/stat');

function ownerRecord(fields: Record<string, unknown>): string {
  return JSON.stringify({ host: hostname(), pid: process.pid, start: null, token: 't', ...fields });
}

describe('an owned lock', () => {
  it('is held until released, and a live owner keeps it', async () => {
    const lockFile = join(tree(), 'a.lock');
    const first = tryAcquireOwnedLock(lockFile);
    expect(first).toBeDefined();
    expect(tryAcquireOwnedLock(lockFile)).toBeUndefined();
    first?.release();
    const second = tryAcquireOwnedLock(lockFile);
    expect(second).toBeDefined();
    second?.release();
    expect(existsSync(lockFile)).toBe(false);
  });

  it('gives up waiting for a live owner with an error that names the file and the owner', async () => {
    const lockFile = join(tree(), 'a.lock');
    const held = tryAcquireOwnedLock(lockFile);
    const waiting = acquireOwnedLock(lockFile, { timeoutMs: 50 });
    await expect(waiting).rejects.toThrow(LockTimeoutError);
    await expect(waiting).rejects.toThrow(
      new RegExp(`${lockFile}, held by process ${process.pid} \\(still running\\)`),
    );
    held?.release();
  });

  it.runIf(onLinux)('is taken from a pid that now belongs to another process', () => {
    const lockFile = join(tree(), 'a.lock');
    writeFileSync(lockFile, ownerRecord({ start: '1' }));
    const lock = tryAcquireOwnedLock(lockFile);
    expect(lock).toBeDefined();
    expect(JSON.parse(readFileSync(lockFile, 'utf8')).start).not.toBe('1');
    lock?.release();
  });

  it('names the unit of its process that holds it, when one does', async () => {
    const lockFile = join(tree(), 'a.lock');
    writeFileSync(lockFile, ownerRecord({ unit: "hook daemon's runtime worker 3" }));
    await expect(acquireOwnedLock(lockFile, { timeoutMs: 30 })).rejects.toThrow(
      `held by process ${process.pid} (still running), its hook daemon's runtime worker 3`,
    );
  });

  it('is never taken from an owner on another host, which cannot be asked', async () => {
    const lockFile = join(tree(), 'a.lock');
    writeFileSync(lockFile, ownerRecord({ host: `not-${hostname()}`, pid: 999_999_999 }));
    await expect(acquireOwnedLock(lockFile, { timeoutMs: 30 })).rejects.toThrow(
      `held by process 999999999 on not-${hostname()}`,
    );
  });

  it('is taken when it names no owner only once it is older than its creation could take', () => {
    const lockFile = join(tree(), 'a.lock');
    writeFileSync(lockFile, '');
    expect(tryAcquireOwnedLock(lockFile)).toBeUndefined();
    const past = (Date.now() - UNNAMED_OWNER_GRACE_MS - 60_000) / 1000;
    utimesSync(lockFile, past, past);
    const lock = tryAcquireOwnedLock(lockFile);
    expect(lock).toBeDefined();
    lock?.release();
  });

  it('leaves a lock that is no longer its own when released', () => {
    const lockFile = join(tree(), 'a.lock');
    const lock = tryAcquireOwnedLock(lockFile);
    writeFileSync(lockFile, ownerRecord({ token: 'someone else' }));
    lock?.release();
    expect(JSON.parse(readFileSync(lockFile, 'utf8')).token).toBe('someone else');
  });
});

describe.runIf(built)('an owned lock, across processes', () => {
  it('passes at once from a killed owner to exactly one of the waiters at a time', async () => {
    const dir = tree();
    const lockFile = join(dir, 'shared.lock');
    const journal = join(dir, 'journal');
    const holder = runNodeScript(`
      import { acquireOwnedLock } from ${OWNED_LOCK};
      await acquireOwnedLock(${JSON.stringify(lockFile)});
      process.stdout.write('holding\\n');
      setInterval(() => {}, 1000);
    `);
    await holder.printed('holding');
    const killed = readFileSync(lockFile, 'utf8');
    holder.child.kill('SIGKILL');
    await holder.exited;

    // Round after round, the killed owner's lock is back and all waiters start on it at once:
    // each may judge it abandoned, only one may take it.
    const rounds = 20;
    const waiters = Array.from({ length: 6 }, (_, i) =>
      runNodeScript(`
        import { appendFileSync, existsSync } from 'node:fs';
        import { acquireOwnedLock } from ${OWNED_LOCK};
        const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
        for (let round = 0; round < ${rounds}; round++) {
          process.stdout.write('ready ' + round + '\\n');
          while (!existsSync(${JSON.stringify(`${dir}/go-`)} + round)) await sleep(1);
          const lock = await acquireOwnedLock(${JSON.stringify(lockFile)}, { timeoutMs: 60_000, retryMs: 1 });
          appendFileSync(${JSON.stringify(journal)}, 'enter ${i}\\n');
          await sleep(10);
          appendFileSync(${JSON.stringify(journal)}, 'leave ${i}\\n');
          lock.release();
        }
        process.stdout.write('ready ${rounds}\\n');
      `),
    );
    for (let round = 0; round < rounds; round++) {
      for (const waiter of waiters) await waiter.printed(`ready ${round}`);
      writeFileSync(lockFile, killed);
      writeFileSync(join(dir, `go-${round}`), '');
    }
    for (const waiter of waiters) expect(await waiter.exited, waiter.stderr()).toBe(0);

    const entries = readFileSync(journal, 'utf8').trim().split('\n');
    expect(entries).toHaveLength(2 * waiters.length * rounds);
    for (let i = 0; i < entries.length; i += 2) {
      // Every holder left before the next one entered.
      expect(entries[i]?.replace('enter', 'leave')).toBe(entries[i + 1]);
    }
    expect(existsSync(lockFile)).toBe(false);
  }, 60_000);

  it.runIf(built)(
    'leaves no temporary file behind when its owner cannot be written (a full disk)',
    () => {
      const dir = tree();
      const lockFile = join(dir, 'a.lock');
      // A process that may write no byte (ulimit -f 0, the signal ignored so the write fails with
      // EFBIG), as on a full disk: the temporary file is created, its content cannot be written.
      const script = `
      import { tryAcquireOwnedLock } from ${OWNED_LOCK};
      for (let i = 0; i < 3; i++) {
        try { tryAcquireOwnedLock(${JSON.stringify(lockFile)}); } catch (error) { console.log(error.code); }
      }`;
      const run = spawnSync(
        'bash',
        [
          '-c',
          'trap "" XFSZ; ulimit -f 0; exec "$0" --input-type=module -e "$1"',
          process.execPath,
          script,
        ],
        { encoding: 'utf8' },
      );
      expect(run.stdout.trim().split('\n'), run.stderr).toEqual(['EFBIG', 'EFBIG', 'EFBIG']);
      expect(readdirSync(dir)).toEqual([]);
    },
  );
});
