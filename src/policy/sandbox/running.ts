import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, realpathSync } from 'node:fs';
import { resolve } from 'node:path';
import { privateTmpDirOf } from './settings.js';

/**
 * Whether a command run in this project's sandbox is still running: `false`, `true`, or
 * `undefined` when this system does not say. Every sandboxed command line names the project's
 * private temporary folder (`export TMPDIR=…`, wrap.ts), and so does each process that runs it
 * (the shell, the sandbox runtime, bubblewrap), so a process whose command line holds that folder
 * is one. A command a host runs in the background, or beside other calls, may change `allowed_paths`
 * while they are judged (a folder swapped for a symbolic link between a writer's check and its
 * write): a guard refuses such writes while one runs (docs/policy.md, The OS sandbox).
 */
export function sandboxRunning(root: string): boolean | undefined {
  let dir: string;
  try {
    dir = privateTmpDirOf(realpathSync(resolve(root)));
  } catch {
    return undefined;
  }
  const mark = Buffer.from(dir);
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    // No /proc (macOS): ps lists the command lines.
    const ps = spawnSync('ps', ['-A', '-ww', '-o', 'command='], {
      encoding: 'utf8',
      timeout: 5_000,
    });
    return ps.status === 0 ? ps.stdout.includes(dir) : undefined;
  }
  for (const pid of pids) {
    try {
      if (readFileSync(`/proc/${pid}/cmdline`).includes(mark)) return true;
    } catch {
      // The process ended, or is not ours to read.
    }
  }
  return false;
}
