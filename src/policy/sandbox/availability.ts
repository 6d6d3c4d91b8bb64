import { spawnSync } from 'node:child_process';
import { accessSync, constants, existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { installPeerAdvice, optionalPeer } from '../../optional-peers.js';

/** Whether shell commands can be run in the OS sandbox on this machine, and if not, why. */
export type SandboxAvailability =
  | { available: true; cli: string }
  | { available: false; reason: string; fix: string };

let cached: SandboxAvailability | undefined;

const RUNTIME = '@anthropic-ai/sandbox-runtime';

/**
 * The sandbox runtime is installed at the version package.json pins (an optional peer dependency,
 * src/optional-peers.ts) — looked for again on every call while it is not, a few file reads, so a
 * process that serves a whole session (the hook daemon, the bridge) sees it once the user installs
 * it — and, checked once per process, this is an operating system it supports, this process is
 * not itself inside a sandbox (a sandbox cannot start inside one), and on Linux bubblewrap, socat
 * and ripgrep are on the PATH and bubblewrap can make the namespaces the sandbox uses (a container
 * without user namespaces cannot). It costs one short `bwrap` run (about 15 ms); `hermes
 * extensions doctor` runs a real sandboxed command as well.
 */
export function sandboxAvailability(): SandboxAvailability {
  if (cached !== undefined) return cached;
  const runtime = installedRuntime();
  if (!runtime.available) return runtime;
  cached = probe(runtime.cli);
  return cached;
}

/** Forgets the cached answer (tests that change the PATH). */
export function resetSandboxAvailability(): void {
  cached = undefined;
}

/**
 * The sandbox runtime's command line (`srt`), in the package installed beside this one (found as
 * src/optional-peers.ts says, from the framework's folder); undefined when it is not installed.
 */
export function sandboxRuntimeCli(): string | undefined {
  return cliIn(optionalPeer(RUNTIME).folder);
}

function cliIn(folder: string | undefined): string | undefined {
  const cli = folder === undefined ? undefined : join(folder, 'dist', 'cli.js');
  return cli !== undefined && existsSync(cli) ? cli : undefined;
}

/** The runtime's command line, or why the installed runtime cannot be used (missing, another version). */
function installedRuntime(): SandboxAvailability {
  const runtime = optionalPeer(RUNTIME);
  const cli = cliIn(runtime.folder);
  if (runtime.installed === undefined || cli === undefined) {
    return unavailable(
      `the sandbox runtime (${RUNTIME}) is not installed (a default install of hermes-extensions leaves it out)`,
      installPeerAdvice(RUNTIME),
    );
  }
  // Fail closed: what the sandbox lets through rests on this version's defaults, which
  // test/support/sandbox-attacks/escapes.ts checks; another version is not known to hold.
  if (!runtime.usable) {
    return unavailable(
      `${RUNTIME} ${runtime.installed} is installed, and the sandbox is checked against ${runtime.wanted} only (what it lets through rests on that version's defaults)`,
      installPeerAdvice(RUNTIME),
    );
  }
  return { available: true, cli };
}

/** What else the sandbox needs of this machine and process, the runtime's command line found. */
function probe(cli: string): SandboxAvailability {
  if (process.env.SANDBOX_RUNTIME === '1') {
    return unavailable(
      'this process already runs inside a sandbox, where another cannot start',
      "run the agent outside its own sandbox (for Claude Code: turn its sandbox off; this guard's sandbox then holds the project)",
    );
  }
  if (process.platform === 'darwin') return { available: true, cli };
  if (process.platform !== 'linux') {
    return unavailable(
      `the sandbox runs on Linux and macOS, not on ${process.platform}`,
      'run the agent on Linux or macOS, or in WSL 2',
    );
  }
  // What the sandbox runtime needs on Linux: bubblewrap, socat (its network filter) and ripgrep
  // (it looks for files that must stay read-only with it); it refuses to start without them.
  const missing = LINUX_PROGRAMS.filter(([program]) => onPath(program) === undefined);
  if (missing.length > 0) {
    return unavailable(
      `${missing.map(([, name]) => name).join(', ')} ${missing.length > 1 ? 'are' : 'is'} not installed`,
      'install them: `apt-get install bubblewrap socat ripgrep` (Debian, Ubuntu), `dnf install bubblewrap socat ripgrep` (Fedora)',
    );
  }
  const run = spawnSync(
    'bwrap',
    [
      '--new-session',
      '--die-with-parent',
      '--ro-bind',
      '/',
      '/',
      '--dev',
      '/dev',
      '--unshare-net',
      '--unshare-pid',
      '--unshare-user',
      '--proc',
      '/proc',
      '--',
      'true',
    ],
    { encoding: 'utf8', timeout: 10_000 },
  );
  if (run.status !== 0) {
    const said = (run.stderr || run.error?.message || `exit ${run.status}`).trim().split('\n')[0];
    return unavailable(
      `bubblewrap cannot create the sandbox's namespaces here (${said})`,
      'allow unprivileged user namespaces (`sysctl kernel.unprivileged_userns_clone=1`; in a container, run it with user namespaces allowed)',
    );
  }
  return { available: true, cli };
}

const LINUX_PROGRAMS = [
  ['bwrap', 'bubblewrap (bwrap)'],
  ['socat', 'socat'],
  ['rg', 'ripgrep (rg)'],
] as const;

function onPath(program: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (dir === '') continue;
    const candidate = join(dir, program);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {}
  }
  return undefined;
}

function unavailable(reason: string, fix: string): SandboxAvailability {
  return { available: false, reason, fix };
}
