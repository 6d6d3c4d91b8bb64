import { randomBytes } from 'node:crypto';
import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { acquireOwnedLock } from './owned-lock.js';

/**
 * The one way a store file under `$HERMES_HOME` is changed (remembered approvals, trusted
 * projects, and the config files `enable` / `disable` edit): its read, change and write are made with `<file>.lock` held, an owned lock
 * (owned-lock.ts), so that processes changing it at once (hooks of parallel tool calls, two
 * agents, a revoke from the command line) never write from a read that another change has made
 * old — which would drop what was added in between, or bring back what was revoked. Readers take
 * no lock: the file is replaced whole ({@link replaceFile}), so they see one version or the next.
 */
export async function underFileLock<T>(file: string, change: () => T | Promise<T>): Promise<T> {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  const lock = await acquireOwnedLock(`${file}.lock`);
  try {
    return await change();
  } finally {
    lock.release();
  }
}

/**
 * Writes `text` to `file` whole: beside it under a name no other writer uses (another process, or
 * another thread of this one), then renamed over it. A write that fails leaves the file as it was
 * and no temporary file behind. `mode` is the new file's (private unless the caller keeps another).
 */
export function replaceFile(file: string, text: string | Uint8Array, mode = 0o600): void {
  const temporary = `${file}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    writeFileSync(temporary, text, { mode });
    renameSync(temporary, file);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw error;
  }
}
