import { readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { removeAbandonedLock, tryAcquireOwnedLock } from '../../fs/owned-lock.js';

/** A count untouched this long is gone: longer than any window (at most 29d, lasting.ts). */
export const LASTING_MAX_AGE_MS = 30 * 86_400_000;
/** How often the folder is looked through, across all processes (a marker's time tells). */
const SWEEP_EVERY_MS = 86_400_000;
const MARKER = '.swept';

/**
 * Removes the counts of sessions long over, and of windows with no call in them for longer than
 * any window lasts: every count that is taken is rewritten, so one untouched for
 * {@link LASTING_MAX_AGE_MS} counts nothing any more. Each under its own lock, taken without
 * waiting (a count in use now is looked at next time); a lock only when its owner is dead.
 * Opportunistic: a failure here refuses no call.
 */
export function sweepLimits(dir: string, now = Date.now()): void {
  try {
    const last = statSync(join(dir, MARKER), { throwIfNoEntry: false })?.mtimeMs;
    if (last !== undefined && now - last < SWEEP_EVERY_MS) return;
    writeFileSync(join(dir, MARKER), '');
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      const stat = statSync(path, { throwIfNoEntry: false });
      if (stat === undefined || now - stat.mtimeMs < LASTING_MAX_AGE_MS) continue;
      if (name.endsWith('.tmp')) rmSync(path, { force: true });
      else if (name.endsWith('.lock')) removeAbandonedLock(path);
      else if (name.endsWith('.json')) removeUnderLock(path, now);
    }
  } catch {
    // The next due sweep tries again.
  }
}

function removeUnderLock(path: string, now: number): void {
  const lock = tryAcquireOwnedLock(`${path}.lock`);
  if (lock === undefined) return;
  try {
    // Under the lock, again: a call may have counted since the folder was read.
    const stat = statSync(path, { throwIfNoEntry: false });
    if (stat !== undefined && now - stat.mtimeMs >= LASTING_MAX_AGE_MS)
      rmSync(path, { force: true });
  } finally {
    lock.release();
  }
}
