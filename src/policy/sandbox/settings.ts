import { createHash, randomBytes } from 'node:crypto';
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  writeFileSync,
} from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { protectedGround } from '../protected/ground.js';
import { type DangerousPath, dangerousAt } from './dangerous.js';

/** What a sandboxed command may do besides reading (docs/policy.md, The OS sandbox). */
export interface SandboxOptions {
  /** The project root; relative `writable` paths start here. */
  root: string;
  /**
   * Folders or files the command may write (relative to `root`, or absolute). Everything else is
   * read-only, except a private temporary folder (`$TMPDIR` inside the sandbox).
   */
  writable?: readonly string[];
  /** Domains the command may reach (`example.com`, `*.npmjs.org`); none: no network at all. */
  network?: readonly string[];
  /**
   * Files or folders the command may not read (absolute, or relative to `root`): inside, a file
   * is there but cannot be opened (on Linux the null device is bound over it on a mount without
   * devices: EACCES, permission denied; on macOS the profile denies it) and a folder is empty. A
   * path that does not exist when the command starts is left out: there is nothing to read yet.
   */
  denyRead?: readonly string[];
  /**
   * Where the sandbox's settings files are kept: a folder the sandboxed command cannot write.
   * Default `$HERMES_HOME/sandbox` (`~/.hermes/sandbox`).
   */
  stateDir?: string;
}

/** The sandbox runtime's settings for one command, and where they are kept. */
export interface SandboxSettings {
  /** The settings file, named by the digest of its content. */
  file: string;
  /** The private temporary folder. */
  tmpDir: string;
  /** Writable paths left out, and why (a link, a folder too large to check for hard links). */
  leftOut: string[];
}

/** More entries than this under one writable folder, and it is not made writable. */
const MAX_WALK = 20_000;

/** What a sandboxed command may write, read and reach, worked out from the options (sandboxSettings). */
export interface SandboxRules {
  /** The project root, where it really is. */
  root: string;
  /** Writable paths, the private temporary folder last. */
  allowWrite: string[];
  /** Files under writable folders with other names (hard links): read-only. */
  denyWrite: string[];
  /**
   * What configures a later program under writable folders, found by the walk that finds hard
   * links (dangerous.ts): read-only in workflow-guard's own bubblewrap line, which holds those
   * that do not exist too. The runtime's `srt` line finds its own.
   */
  dangerous: DangerousPath[];
  /** Protected ground of the project (protectedPaths): read-only. */
  protectedPaths: string[];
  /** Paths not to read, as readDenials writes them. */
  denyRead: string[];
  network: string[];
  tmpDir: string;
  leftOut: string[];
  /** Where the settings are kept (SandboxOptions.stateDir). */
  stateDir: string;
}

/** The rules for these options; throws when the private temporary folder cannot be trusted. */
export function sandboxRules(options: SandboxOptions): SandboxRules {
  const root = realpathSync(resolve(options.root));
  const leftOut: string[] = [];
  const allowWrite: string[] = [];
  const denyWrite: string[] = [];
  const dangerous: DangerousPath[] = [];
  for (const given of options.writable ?? []) {
    const path = resolve(root, given);
    if (!nameIsPlace(path)) {
      leftOut.push(`${given} (a symbolic link)`);
      continue;
    }
    const found = walkWritable(path);
    if (found === undefined) {
      leftOut.push(`${given} (over ${MAX_WALK} entries to check for hard links)`);
      continue;
    }
    allowWrite.push(path);
    denyWrite.push(...found.linked);
    dangerous.push(...found.dangerous);
  }
  const tmpDir = privateTmpDir(root);
  return {
    root,
    allowWrite: [...allowWrite, tmpDir],
    denyWrite,
    dangerous,
    protectedPaths: protectedPaths(root),
    denyRead: readDenials(root, options.denyRead),
    network: [...(options.network ?? [])],
    tmpDir,
    leftOut,
    stateDir: options.stateDir ?? join(hermesHome(), 'sandbox'),
  };
}

/**
 * Builds the settings and writes them to a file named by their digest (again when the file is
 * missing or its bytes differ, so what runs is what was built). Writable paths are given to the
 * sandbox only where their name is where they are: a writable path that is (or lies under) a
 * symbolic link could make a folder outside it writable, so it is left out. Files under a writable
 * folder that have other names (hard links) stay read-only: a write through one would change the
 * file under its other name, wherever that is.
 */
export function sandboxSettings(options: SandboxOptions): SandboxSettings {
  const rules = sandboxRules(options);
  const settings = {
    network: { allowedDomains: rules.network, deniedDomains: [] },
    filesystem: {
      denyRead: rules.denyRead,
      allowWrite: rules.allowWrite,
      denyWrite: [...rules.denyWrite, ...runtimeDefaultWrites(), ...rules.protectedPaths],
    },
  };
  const text = `${JSON.stringify(settings, null, 2)}\n`;
  const digest = createHash('sha256').update(text).digest('hex').slice(0, 32);
  const file = join(rules.stateDir, `srt-${digest}.json`);
  keepFile(rules, file, text);
  return { file, tmpDir: rules.tmpDir, leftOut: rules.leftOut };
}

/**
 * Writes `text` to `file` in the rules' state folder, unless it holds those bytes already; throws
 * when that folder lies where the sandbox may write (what a sandbox runs on must not be writable
 * from inside it).
 */
export function keepFile(rules: SandboxRules, file: string, text: string | Buffer): void {
  const dir = rules.stateDir;
  const keptIn = realFolder(dir);
  const writableHere = rules.allowWrite.find(
    (path) => keptIn === path || keptIn.startsWith(`${path}/`),
  );
  if (writableHere !== undefined) {
    throw new Error(`${dir} lies in ${writableHere}, which the sandbox may write`);
  }
  if (!sameBytes(file, text)) {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    // A name of its own: the daemon's runtimes are threads of one process, with one pid.
    const temporary = `${file}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
    writeFileSync(temporary, text, { mode: 0o600 });
    renameSync(temporary, file);
  }
}

/**
 * `denyRead` as the sandbox runtime's settings take it: absolute paths, in a stable order (the
 * settings file is named by its digest). The runtime reads an entry holding `*`, `?`, `[` or `]`
 * as a glob, which it expands when the command starts, on Linux by listing folders; so each such
 * character of a path is written as a class that matches it alone (`[[]`), and a file named
 * `a[1].pem` is denied rather than a file `a1.pem`. A `]` needs no class: the runtime's glob
 * takes one outside a class as itself.
 */
export function readDenials(root: string, paths: readonly string[] | undefined): string[] {
  const absolute = new Set((paths ?? []).map((path) => resolve(root, path)));
  return [...absolute].sort().map((path) => path.replace(/[*?[]/g, (char) => `[${char}]`));
}

/** Where a folder (or its nearest existing parent, with the rest of the name) really is. */
function realFolder(path: string): string {
  let at = resolve(path);
  const rest: string[] = [];
  while (!existsSync(at) && dirname(at) !== at) {
    rest.unshift(at.slice(dirname(at).length + 1));
    at = dirname(at);
  }
  return join(realpathSync(at), ...rest);
}

/**
 * What the sandbox runtime makes writable whatever the settings say, besides the standard streams
 * (its `getDefaultWritePaths`): `/tmp/claude` and, in the home folder, `~/.npm/_logs` and
 * `~/.claude/debug`. They are outside the project, but programs that run unsandboxed read or write
 * them: npm appends its debug log to `~/.npm/_logs/<start time>-debug-0.log`, following a symbolic
 * link, so links planted there by a sandboxed command would make the next `npm ls` (a proven
 * read) write any file. Denied here, they stay read-only (docs/policy.md, The OS sandbox). The runtime reads
 * the home folder as this process does (`HOME`); test/support/sandbox-attacks/escapes.ts checks the list against
 * the runtime's own.
 */
function runtimeDefaultWrites(): string[] {
  const home = homedir();
  return [
    '/tmp/claude',
    '/private/tmp/claude',
    join(home, '.npm', '_logs'),
    join(home, '.claude', 'debug'),
  ];
}

/**
 * Protected ground stays read-only in every sandbox, whatever it makes writable (docs/trust.md,
 * Protected ground): by its name and where it really is, and the project's config files by name.
 */
export function protectedPaths(root: string): string[] {
  const paths = new Set<string>();
  for (const place of protectedGround(root).places) {
    paths.add(place.path);
    paths.add(place.real);
  }
  for (const name of ROOT_CONFIG_FILES) paths.add(join(root, name));
  return [...paths];
}

/** The project's config files at its root (find-project-config.ts); `.hermes/` is a place of its own. */
const ROOT_CONFIG_FILES = [
  '.hermesrc',
  '.hermesrc.json',
  '.hermesrc.yaml',
  '.hermesrc.yml',
  'hermes.config.ts',
  'hermes.config.mts',
  'hermes.config.cts',
  'hermes.config.js',
  'hermes.config.mjs',
  'hermes.config.cjs',
];

/** `$HERMES_HOME`, as the framework reads it (docs/configuration.md, Where extensions and config come from). */
function hermesHome(): string {
  const home = process.env.HERMES_HOME;
  if (home === undefined || home === '') return join(homedir(), '.hermes');
  return home === '~' || home.startsWith('~/') ? homedir() + home.slice(1) : resolve(home);
}

function sameBytes(file: string, text: string | Buffer): boolean {
  try {
    return readFileSync(file).equals(Buffer.from(text));
  } catch {
    return false;
  }
}

/** The path, or its nearest existing folder, is reached without a symbolic link. */
function nameIsPlace(path: string): boolean {
  let at = path;
  while (!existsSync(at) && dirname(at) !== at) {
    if (lstatSync(at, { throwIfNoEntry: false })?.isSymbolicLink()) return false;
    at = dirname(at);
  }
  try {
    return realpathSync(at) === at;
  } catch {
    return false;
  }
}

/**
 * What one walk of a writable folder finds: the regular files under `path` with more than one
 * name, and what configures a later program (dangerous.ts); undefined when there are too many
 * entries to walk them all (what was not seen could not be held).
 */
function walkWritable(path: string): { linked: string[]; dangerous: DangerousPath[] } | undefined {
  const linked: string[] = [];
  const dangerous: DangerousPath[] = [];
  let seen = 0;
  const walk = (at: string, name: string | undefined): boolean => {
    const stats = lstatSync(at, { throwIfNoEntry: false });
    if (stats === undefined) return true;
    if (++seen > MAX_WALK) return false;
    if (stats.isFile() && stats.nlink > 1) linked.push(at);
    // The folder itself is what was made writable, whatever its name.
    if (name !== undefined) dangerous.push(...dangerousAt(at, name, stats));
    if (!stats.isDirectory()) return true;
    for (const entry of readdirSync(at)) if (!walk(join(at, entry), entry)) return false;
    return true;
  };
  return walk(path, undefined) ? { linked, dangerous } : undefined;
}

/**
 * A temporary folder of this user's for this project: outside the project, made by this process
 * (mode 0700), and refused when someone else made it first in a shared temporary folder.
 */
function privateTmpDir(root: string): string {
  const uid = process.getuid?.() ?? 0;
  const dir = privateTmpDirOf(root);
  const base = dirname(dir);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  for (const folder of [base, dir]) {
    const stats = lstatSync(folder);
    if (!stats.isDirectory() || (process.getuid !== undefined && stats.uid !== uid)) {
      throw new Error(
        `${folder} is not a folder of this user's: the sandbox's temporary folder cannot be trusted`,
      );
    }
    if ((stats.mode & 0o077) !== 0) chmodSync(folder, 0o700);
  }
  return dir;
}

/** Where `privateTmpDir` keeps the temporary folder of the project at `root` (a real path). */
export function privateTmpDirOf(root: string): string {
  const uid = process.getuid?.() ?? 0;
  return join(
    tmpdir(),
    `hermes-sandbox-${uid}`,
    createHash('sha256').update(root).digest('hex').slice(0, 16),
  );
}
