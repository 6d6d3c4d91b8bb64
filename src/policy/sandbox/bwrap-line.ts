import { createHash } from 'node:crypto';
import { existsSync, lstatSync, readdirSync, realpathSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { groundSandboxAvailability } from './ground-availability.js';
import { shellWord } from './quote.js';
import { keepFile, type SandboxOptions, sandboxRules } from './settings.js';
import { unixBlockFilter } from './unix-block.js';

/** The parts of workflow-guard's own bubblewrap line for one set of options (see `bwrapLineParts`). */
export interface BwrapLineParts {
  /** Everything before the script word: bubblewrap, its arguments, `… -c`. */
  before: string;
  /** Everything after it: the redirection that hands bubblewrap the seccomp filter. */
  after: string;
  tmpDir: string;
  leftOut: string[];
}

/**
 * The sandbox's own bubblewrap line on Linux, when no network is allowed (docs/policy.md, The OS
 * sandbox): the same rules as the sandbox runtime's `srt` line (settings.ts), without a Node.js
 * process, a network filter or a search of the disk at each command. It costs what bubblewrap
 * costs (BENCHMARKS.md). In order:
 *
 * - the whole system read-only, a new `/dev` and `/proc`, no network at all (`--unshare-net`: an
 *   empty network namespace, not even loopback to the machine's), its own process tree, the
 *   command in a session of its own (it cannot push keystrokes into the agent's terminal), no
 *   capabilities, and gone when its shell is (`--die-with-parent`);
 * - each writable path that exists bound writable (the private temporary folder among them);
 * - inside them, read-only again: files with other names (hard links), protected ground, and the
 *   files that configure programs run later outside the sandbox (`dangerousNames`);
 * - each path not to read masked: the null device over a file (EACCES: binds allow no devices),
 *   an empty read-only folder over a folder;
 * - `socket(AF_UNIX)` refused by a seccomp filter (unix-block.ts), kept as a file in the state
 *   folder, which no sandbox may write.
 *
 * Undefined — the `srt` line is used — off Linux, with a network domain allowed (the filter that
 * lets some through is the runtime's), when a path that must stay read-only inside a writable
 * folder does not exist (bubblewrap could hold it only with a mount point left on the disk), or a
 * writable path holds the project root. Throws as `sandboxRules` does.
 */
export function bwrapLineParts(options: SandboxOptions): BwrapLineParts | undefined {
  if (process.platform !== 'linux' || (options.network ?? []).length > 0) return undefined;
  const tools = groundSandboxAvailability();
  if (!tools.available || tools.platform !== 'linux') return undefined;
  const filter = unixBlockFilter();
  if (filter === undefined) return undefined;
  const rules = sandboxRules(options);
  const writable = rules.allowWrite.filter((path) => existsSync(path));
  const within = (path: string) =>
    writable.some((dir) => path === dir || path.startsWith(`${dir}/`));
  if (writable.some((dir) => rules.root === dir || rules.root.startsWith(`${dir}/`))) {
    return undefined;
  }
  const readOnlyAt: string[] = [];
  const missing: string[] = [];
  const project = writable.filter((dir) => dir !== rules.tmpDir);
  for (const path of [
    ...rules.denyWrite,
    ...rules.protectedPaths,
    ...project.flatMap(dangerousIn),
  ]) {
    if (!within(path)) continue;
    const real = realOf(path);
    if (real === undefined) missing.push(path);
    else if (within(real)) readOnlyAt.push(real);
  }
  const readOnly = outermost(readOnlyAt);
  // A missing path inside a folder bound read-only cannot be made; any other could be.
  const held = (path: string) => readOnly.some((dir) => path === dir || path.startsWith(`${dir}/`));
  if (!missing.every(held)) return undefined;
  const masks = outermost(
    [...new Set((options.denyRead ?? []).map((path) => resolve(rules.root, path)))].flatMap(
      (path) => realOf(path) ?? [],
    ),
  ).filter((path) => path !== '/' && !path.startsWith('/dev/') && !path.startsWith('/proc/'));
  const file = join(
    rules.stateDir,
    `unix-block-${process.arch}-${createHash('sha256').update(filter).digest('hex').slice(0, 16)}.bpf`,
  );
  keepFile(rules, file, filter);
  const words = [
    shellWord(tools.bwrap),
    ...BASE,
    ...byDepth(writable).flatMap((path) => ['--bind', shellWord(path), shellWord(path)]),
    ...byDepth(readOnly).flatMap((path) => ['--ro-bind', shellWord(path), shellWord(path)]),
    ...byDepth(masks).flatMap((path) =>
      statSync(path).isDirectory()
        ? ['--tmpfs', shellWord(path), '--remount-ro', shellWord(path)]
        : ['--ro-bind', '/dev/null', shellWord(path)],
    ),
    '--setenv',
    'SANDBOX_RUNTIME',
    '1',
    '--seccomp',
    FILTER_FD,
    '--',
    shellWord(tools.bash),
    '-c',
  ];
  return {
    before: `${words.join(' ')} `,
    after: ` ${FILTER_FD}<${shellWord(file)}`,
    tmpDir: rules.tmpDir,
    leftOut: rules.leftOut,
  };
}

/** The descriptor the outer shell opens the filter on, for bubblewrap to read (and close). */
const FILTER_FD = '9';

const BASE = [
  '--new-session',
  '--die-with-parent',
  '--unshare-net',
  '--unshare-pid',
  '--unshare-ipc',
  '--cap-drop',
  'ALL',
  '--ro-bind',
  '/',
  '/',
  '--dev',
  '/dev',
  '--proc',
  '/proc',
];

/**
 * Files and folders that configure what programs do when they run later, outside the sandbox: a
 * shell's start-up files, git's settings and hooks, editors' and agents' project settings. Held
 * read-only where they exist in a writable folder, as the sandbox runtime holds them.
 */
const DANGEROUS_FILES = new Set([
  '.bashrc',
  '.bash_profile',
  '.profile',
  '.zshrc',
  '.zprofile',
  '.gitconfig',
  '.gitmodules',
  '.ripgreprc',
  '.mcp.json',
]);
const DANGEROUS_FOLDERS = new Set(['.vscode', '.idea']);
const DANGEROUS_INSIDE: Record<string, string[]> = {
  '.git': ['hooks', 'config'],
  '.claude': ['commands', 'agents'],
};

/** The 20,000 entries settings.ts walks for hard links; a larger folder was left out there. */
const MAX_WALK = 20_000;

/** The dangerous files and folders (by name, any case) under a writable folder, or itself. */
function dangerousIn(dir: string): string[] {
  const found: string[] = [];
  let seen = 0;
  const walk = (at: string): void => {
    if (++seen > MAX_WALK) return;
    let names: string[];
    try {
      names = readdirSync(at);
    } catch {
      return;
    }
    for (const name of names) {
      const path = join(at, name);
      const lower = name.toLowerCase();
      const stats = lstatSync(path, { throwIfNoEntry: false });
      if (stats === undefined) continue;
      if (DANGEROUS_FILES.has(lower) || DANGEROUS_FOLDERS.has(lower)) {
        found.push(path);
        continue;
      }
      const inside = DANGEROUS_INSIDE[lower];
      if (inside !== undefined && stats.isDirectory()) {
        for (const part of inside) {
          if (existsSync(join(path, part))) found.push(join(path, part));
        }
      }
      if (stats.isDirectory()) walk(path);
    }
  };
  walk(dir);
  return found;
}

function realOf(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}

/** The paths none of which lies inside another of them. */
function outermost(paths: readonly string[]): string[] {
  const kept: string[] = [];
  for (const path of [...new Set(paths)].sort()) {
    if (!kept.some((outer) => path === outer || path.startsWith(`${outer}/`))) kept.push(path);
  }
  return kept;
}

function byDepth(paths: readonly string[]): string[] {
  const depth = (path: string) => path.split('/').length;
  return [...paths].sort((a, b) => depth(a) - depth(b) || (a < b ? -1 : a > b ? 1 : 0));
}
