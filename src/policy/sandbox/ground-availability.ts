import { spawnSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';

/** The programs the protected-ground sandbox runs, or why it cannot run here. */
export type GroundSandboxAvailability =
  | { available: true; platform: 'linux'; bwrap: string; flock: string; find: string; bash: string }
  | { available: true; platform: 'darwin'; sandboxExec: string; bash: string }
  | { available: false; reason: string; fix: string };

let cached: GroundSandboxAvailability | undefined;

/**
 * Whether the protected-ground sandbox (ground-sandbox.ts) can run here, checked once per
 * process: on Linux bubblewrap, flock and find (util-linux and findutils, on every distribution
 * that has bubblewrap) and bubblewrap able to make the namespaces it needs (one short run, about
 * 15 ms); on macOS `sandbox-exec`. Unlike workflow-guard's sandbox it needs no optional package:
 * it is the framework's, on every host. Programs are taken from the system's folders first, then
 * from absolute folders of the PATH: never a relative one (a project's `node_modules/.bin`).
 */
export function groundSandboxAvailability(): GroundSandboxAvailability {
  cached ??= probe();
  return cached;
}

/** Forgets the cached answer (tests that change the PATH). */
export function resetGroundSandboxAvailability(): void {
  cached = undefined;
}

const SYSTEM_FOLDERS = ['/usr/bin', '/bin', '/usr/sbin', '/sbin', '/usr/local/bin'];

function probe(): GroundSandboxAvailability {
  const bash = program('bash');
  if (process.platform === 'darwin') {
    const sandboxExec = program('sandbox-exec');
    if (sandboxExec === undefined || bash === undefined) {
      return unavailable(
        'sandbox-exec or bash is not found',
        'run the agent on macOS 10.5 or later',
      );
    }
    return { available: true, platform: 'darwin', sandboxExec, bash };
  }
  if (process.platform !== 'linux') {
    return unavailable(
      `the sandbox runs on Linux and macOS, not on ${process.platform}`,
      'run the agent on Linux or macOS, or in WSL 2',
    );
  }
  const bwrap = program('bwrap');
  const flock = program('flock');
  const find = program('find');
  if (bwrap === undefined || flock === undefined || find === undefined || bash === undefined) {
    const missing = [
      bwrap === undefined ? 'bubblewrap (bwrap)' : '',
      flock === undefined ? 'flock (util-linux)' : '',
      find === undefined ? 'find (findutils)' : '',
      bash === undefined ? 'bash' : '',
    ].filter((name) => name !== '');
    return unavailable(
      `${missing.join(', ')} ${missing.length > 1 ? 'are' : 'is'} not installed`,
      'install bubblewrap: `apt-get install bubblewrap` (Debian, Ubuntu), `dnf install bubblewrap` (Fedora)',
    );
  }
  const run = spawnSync(bwrap, [...BWRAP_BASE, '--', find, '/', '-maxdepth', '0'], {
    encoding: 'utf8',
    timeout: 10_000,
  });
  if (run.status !== 0) {
    const said = (run.stderr || run.error?.message || `exit ${run.status}`).trim().split('\n')[0];
    return unavailable(
      `bubblewrap cannot create the sandbox's namespaces here (${said})`,
      'allow unprivileged user namespaces (`sysctl kernel.unprivileged_userns_clone=1`; in a container, run it with user namespaces allowed)',
    );
  }
  return { available: true, platform: 'linux', bwrap, flock, find, bash };
}

/**
 * What every protected-ground sandbox starts with: the whole system as it is, writable as
 * before, the network as before; a session of its own (no keystrokes pushed into the agent's
 * terminal); a process namespace of its own, so nothing it starts outlives it (a process left
 * behind would find its mounts gone once the command line removed them) and it sees no process
 * of the agent's to write into; no capabilities (bubblewrap run by root keeps them otherwise, and
 * they undo mounts).
 */
export const BWRAP_BASE = [
  '--new-session',
  '--die-with-parent',
  '--unshare-pid',
  '--cap-drop',
  'ALL',
  '--dev-bind',
  '/',
  '/',
  '--proc',
  '/proc',
];

function program(name: string): string | undefined {
  const path = (process.env.PATH ?? '').split(delimiter).filter((dir) => isAbsolute(dir));
  for (const dir of [...SYSTEM_FOLDERS, ...path]) {
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {}
  }
  return undefined;
}

function unavailable(reason: string, fix: string): GroundSandboxAvailability {
  return { available: false, reason, fix };
}

/** A program as this file finds its own: the system's folders first, then absolute PATH folders. */
export function programPath(name: string): string | undefined {
  return program(name);
}
