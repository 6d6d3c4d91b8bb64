import { readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { removeAbandonedLock, tryAcquireOwnedLock } from '../../fs/owned-lock.js';

/** Its modification time is when the turn folder was last swept. */
export const SWEEP_MARKER = '.swept';

/**
 * Removes, from the turn-state folder, what turns that never ended left behind: the state of a
 * turn that never got its `Stop` (the agent was killed, the session abandoned), a session's
 * record of what it was told and its pinned root, half-written files and lock files of dead processes — each once it
 * is `maxAgeMs` old (untouched that long; every update rewrites a turn's file). Cheap on the
 * hook's path: the folder is read at most once per `everyMs`, across all processes, as the
 * marker's modification time tells; the process that finds the sweep due moves the marker first,
 * so others skip it.
 *
 * A live turn is never cut: a state file is removed only under its session's lock, taken without
 * waiting (a session busy now is swept next time), and a lock only when its owner is dead.
 */
export function sweepTurnFolder(dir: string, options: { maxAgeMs: number; everyMs: number }): void {
  const now = Date.now();
  const marker = join(dir, SWEEP_MARKER);
  const last = statSync(marker, { throwIfNoEntry: false })?.mtimeMs;
  if (last !== undefined && now - last < options.everyMs) return;
  writeFileSync(marker, '');
  for (const name of readdirSync(dir)) {
    if (name === SWEEP_MARKER) continue;
    const path = join(dir, name);
    try {
      const stat = statSync(path, { throwIfNoEntry: false });
      if (stat === undefined || now - stat.mtimeMs < options.maxAgeMs) continue;
      sweepOne(dir, name, path, options.maxAgeMs);
    } catch {
      // One file that cannot be swept does not stop the others.
    }
  }
}

function sweepOne(dir: string, name: string, path: string, maxAgeMs: number): void {
  // A claim on an abandoned lock and a lock itself both name their owner.
  if (/\.break-\d+$/.test(name)) removeAbandonedLock(path);
  else if (name.endsWith('.tmp')) rmSync(path, { force: true });
  // A lock folder of versions that locked with `mkdir` (`<session>.json.lock`).
  else if (name.endsWith('.json.lock') && statSync(path).isDirectory())
    rmSync(path, { recursive: true, force: true });
  else if (name.endsWith('.lock')) removeAbandonedLock(path);
  else if (name.endsWith('.json') || name.endsWith('.told') || name.endsWith('.root')) {
    const session = name.slice(0, name.lastIndexOf('.'));
    const lock = tryAcquireOwnedLock(join(dir, `${session}.lock`));
    if (lock === undefined) return;
    try {
      // Under the lock, again: a hook may have written it since the folder was read.
      const stat = statSync(path, { throwIfNoEntry: false });
      if (stat !== undefined && Date.now() - stat.mtimeMs >= maxAgeMs)
        rmSync(path, { force: true });
    } finally {
      lock.release();
    }
  }
}
