import { createHash } from 'node:crypto';
import { existsSync, lstatSync, readdirSync, realpathSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { groundSandboxAvailability, programPath } from './ground-availability.js';
import {
  bridgeScript,
  domainsText,
  filterDir,
  filterDomains,
  filterName,
} from './network-filter.js';
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
  /** With a domain allowed: the hook daemon's filter the line points at, to keep running. */
  filter?: { stateDir: string; domains: string[] };
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
 * With a network domain allowed and `daemonFilter`, the line points at the hook daemon's network
 * filter for those domains (network-filter.ts): bubblewrap in two layers, the outer with the
 * network namespace, the same mounts and the bridge script (its `socat`s need Unix sockets), the
 * inner as above but for `--unshare-net`, its process namespace hiding the bridge.
 *
 * Undefined — the `srt` line is used — off Linux, with a network domain allowed and no
 * `daemonFilter` (or no `socat`), when a path that must stay read-only inside a writable folder
 * does not exist (bubblewrap could hold it only with a mount point left on the disk), or a
 * writable path holds the project root. Throws as `sandboxRules` does.
 */
export function bwrapLineParts(
  options: SandboxOptions,
  daemonFilter = false,
): BwrapLineParts | undefined {
  const network = filterDomains(options.network ?? []);
  if (process.platform !== 'linux' || (network.length > 0 && !daemonFilter)) return undefined;
  const tools = groundSandboxAvailability();
  if (!tools.available || tools.platform !== 'linux') return undefined;
  // A path the bridge script can name without quoting it (the script is the same for every line).
  const socat = network.length > 0 ? programPath('socat') : undefined;
  if (network.length > 0 && !/^[\w./+-]+$/.test(socat ?? '')) return undefined;
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
  const mounts = [
    ...MOUNT_BASE,
    ...byDepth(writable).flatMap((path) => ['--bind', shellWord(path), shellWord(path)]),
    ...byDepth(readOnly).flatMap((path) => ['--ro-bind', shellWord(path), shellWord(path)]),
    ...byDepth(masks).flatMap((path) =>
      statSync(path).isDirectory()
        ? ['--tmpfs', shellWord(path), '--remount-ro', shellWord(path)]
        : ['--ro-bind', '/dev/null', shellWord(path)],
    ),
  ];
  const inner = [
    shellWord(tools.bwrap),
    ...(network.length > 0
      ? ['--die-with-parent', ...APART, ...BARE]
      : [...OUTER, ...APART, ...BARE]),
    ...mounts,
    '--setenv',
    'SANDBOX_RUNTIME',
    '1',
    '--seccomp',
    FILTER_FD,
    '--',
    shellWord(tools.bash),
    '-c',
  ];
  let outer: string[] = [];
  if (network.length > 0 && socat !== undefined) {
    const script = bridgeScript(socat);
    const scriptFile = join(
      rules.stateDir,
      `network-bridge-${createHash('sha256').update(script).digest('hex').slice(0, 16)}.sh`,
    );
    keepFile(rules, scriptFile, script);
    keepFile(rules, join(rules.stateDir, `${filterName(network)}.json`), domainsText(network));
    outer = [
      shellWord(tools.bwrap),
      ...OUTER,
      ...APART,
      ...mounts,
      '--',
      shellWord(tools.bash),
      '-p',
      shellWord(scriptFile),
      shellWord(filterDir(rules.stateDir, network)),
    ];
  }
  return {
    before: `${[...outer, ...inner].join(' ')} `,
    after: ` ${FILTER_FD}<${shellWord(file)}`,
    tmpDir: rules.tmpDir,
    leftOut: rules.leftOut,
    ...(network.length > 0 ? { filter: { stateDir: rules.stateDir, domains: network } } : {}),
  };
}

/** The descriptor the outer shell opens the filter on, for bubblewrap to read (and close). */
const FILTER_FD = '9';

/**
 * The layer with the network namespace. With a domain allowed it keeps bubblewrap's capabilities
 * in its user namespace (the inner bubblewrap needs them to make its own namespaces), and runs
 * only the bridge script, `socat` and the inner bubblewrap, which drops them.
 */
const OUTER = ['--new-session', '--die-with-parent', '--unshare-net'];
/** A process tree of its own (what it leaves running ends with it), and no shared memory. */
const APART = ['--unshare-pid', '--unshare-ipc'];
const BARE = ['--cap-drop', 'ALL'];
const MOUNT_BASE = ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc'];

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
