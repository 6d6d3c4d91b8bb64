import { createHash } from 'node:crypto';
import { existsSync, lstatSync, readdirSync, realpathSync, type Stats, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { type DangerousPath, dangerousTop } from './dangerous.js';
import { groundSandboxAvailability, programPath } from './ground-availability.js';
import { isLeftMountPoint } from './ground-mounts.js';
import { mountPointsRemoved } from './ground-sandbox.js';
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
 * - each folder between a writable folder and what is held in it bound onto itself (a mount
 *   point cannot be renamed: `mv plans/.git old` would take a held config along);
 * - inside them, read-only again: files with other names (hard links), protected ground, and the
 *   files that configure programs run later outside the sandbox (dangerous.ts);
 * - what configures a later program and does not exist yet, at the top of each writable folder
 *   and inside each `.git` and `.claude` folder in it: something read-only bound over its name
 *   (as over a path not to read), so it cannot be made. bubblewrap makes a mount point on the
 *   disk for each, an empty file or folder, which the line removes after the command, under a
 *   lock in the state folder (`mountPointsRemoved`, ground-sandbox.ts);
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
 * `daemonFilter` (or no `socat`), when a path of protected ground or a hard link that must
 * stay read-only inside a writable folder does not exist, or a writable path holds the project
 * root. Throws `LinkAtDangerousName` where what configures a later program is a symbolic link
 * (bubblewrap would bind over where it leads, and the link could be replaced by a file). A writable folder with too many entries to walk is left
 * out (settings.ts, `leftOut`): what the walk did not see it could not hold. Throws as
 * `sandboxRules` does.
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
  for (const path of [...rules.denyWrite, ...rules.protectedPaths]) {
    if (!within(path)) continue;
    const real = realOf(path);
    if (real === undefined) missing.push(path);
    else if (within(real)) readOnlyAt.push(real);
  }
  const project = writable.filter(
    (dir) => dir !== rules.tmpDir && statSync(dir, { throwIfNoEntry: false })?.isDirectory(),
  );
  const toBlock = new Map<string, DangerousPath['kind']>();
  for (const { path, kind } of [...project.flatMap(dangerousTop), ...rules.dangerous]) {
    const stats = lstatSync(path, { throwIfNoEntry: false });
    // A link cannot be bound over (bubblewrap follows it) and could be replaced by a file; the
    // runtime's line does not hold it either.
    if (stats?.isSymbolicLink()) throw new LinkAtDangerousName(path);
    if (stats === undefined || leftMountPoint(path, stats)) toBlock.set(path, kind);
    else readOnlyAt.push(path);
  }
  const readOnly = outermost(readOnlyAt);
  // A missing path inside a folder bound read-only cannot be made; any other could be.
  const held = (path: string) => readOnly.some((dir) => path === dir || path.startsWith(`${dir}/`));
  if (!missing.every(held)) return undefined;
  const blocked = byDepth([...toBlock.keys()].filter((path) => !held(path)));
  // Each folder between a writable folder and what is held in it is a mount point too, so it
  // cannot be moved aside (`mv plans/.git old`, the held config along) and made again.
  const keep = new Set<string>();
  for (const path of [...readOnly, ...blocked]) {
    for (let dir = dirname(path); !writable.includes(dir) && within(dir); dir = dirname(dir)) {
      keep.add(dir);
    }
  }
  const masks = outermost(
    [...new Set((options.denyRead ?? []).map((path) => resolve(rules.root, path)))].flatMap(
      (path) => realOf(path) ?? [],
    ),
  ).filter(
    (path) =>
      path !== '/' && !path.startsWith('/dev/') && !path.startsWith('/proc/') && !toBlock.has(path),
  );
  const file = join(
    rules.stateDir,
    `unix-block-${process.arch}-${createHash('sha256').update(filter).digest('hex').slice(0, 16)}.bpf`,
  );
  keepFile(rules, file, filter);
  const mounts = [
    ...MOUNT_BASE,
    ...byDepth(writable).flatMap((path) => ['--bind', shellWord(path), shellWord(path)]),
    ...byDepth([...keep]).flatMap((path) => ['--bind-try', shellWord(path), shellWord(path)]),
    ...byDepth(readOnly).flatMap((path) => ['--ro-bind', shellWord(path), shellWord(path)]),
    ...blocked.flatMap((path) => over(path, toBlock.get(path) === 'folder')),
    ...byDepth(masks).flatMap((path) => over(path, statSync(path).isDirectory())),
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
  const line = {
    before: `${[...outer, ...inner].join(' ')} `,
    after: ` ${FILTER_FD}<${shellWord(file)}`,
    tmpDir: rules.tmpDir,
    leftOut: rules.leftOut,
    ...(network.length > 0 ? { filter: { stateDir: rules.stateDir, domains: network } } : {}),
  };
  if (blocked.length === 0) return line;
  // bubblewrap makes a mount point for each blocked path on the disk: removed after the command.
  const lock = join(rules.stateDir, 'mount-points.lock');
  keepFile(rules, lock, '');
  const around = mountPointsRemoved(
    tools,
    lock,
    blocked.map((path) => ({ path })),
  );
  return {
    ...line,
    before: `${around.before}${line.before}`,
    after: `${line.after}${around.after}`,
  };
}

/**
 * Something read-only and empty bound over a path: the null device over a file (a bind allows no
 * devices: it cannot be opened), a new read-only folder over a folder.
 */
function over(path: string, folder: boolean): string[] {
  return folder
    ? ['--tmpfs', shellWord(path), '--remount-ro', shellWord(path)]
    : ['--ro-bind', '/dev/null', shellWord(path)];
}

/**
 * A mount point an earlier line left (its removal skipped while another sandbox ran): an empty
 * read-only file as `isLeftMountPoint` says, or an empty folder where a dangerous folder would be.
 * It is blocked (and removed after) like a path that does not exist.
 */
function leftMountPoint(path: string, stats: Stats): boolean {
  if (stats.isDirectory()) {
    try {
      return readdirSync(path).length === 0;
    } catch {
      return false;
    }
  }
  return isLeftMountPoint(path);
}

/** A symbolic link where a file that configures a later program would be: nothing can hold it. */
export class LinkAtDangerousName extends Error {
  readonly fix: string;
  constructor(path: string) {
    super(
      `${path} is a symbolic link where a file that configures programs run later (a shell, git, an editor, an agent) is read, and no sandbox can keep a link from being replaced`,
    );
    this.fix = `look at where it leads, then remove it (rm '${path}') or put a file in its place, in your own terminal`;
  }
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
