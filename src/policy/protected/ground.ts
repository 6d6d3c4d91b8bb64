import { lstatSync } from 'node:fs';
import { homedir, userInfo } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { PACKAGE_ROOT } from '../../package-root.js';
import { type PathBase, resolveProjectPath } from '../project-paths.js';
import { claudeConfigDir, codexHome, namedFolder } from './agent-folders.js';
import { daemonFolder } from './daemon-folder.js';
import { LOCATION_FILE, managedLocation, systemManagedDir } from './managed-location.js';
import {
  PROJECT_MCP_CONFIG,
  projectMcpConfigs,
  userConfigHome,
  userMcpConfigs,
} from './mcp-configs.js';
import { shellStartupPlaces } from './shell-startup.js';

/**
 * Protected ground (docs/trust.md, Protected ground): the files and folders that decide which
 * guards run, where, and with what. An agent may not change them by any tool, with or without a
 * plan; the user changes them, in a terminal.
 */
export interface ProtectedGround {
  /** The project root (absolute). */
  readonly root: string;
  /** `$HERMES_HOME` (absolute): the sandbox keeps its settings in it. */
  readonly hermesHome: string;
  /** Each protected file or folder, absolute, with what it decides. */
  readonly places: readonly ProtectedPlace[];
}

export interface ProtectedPlace {
  /** Absolute; a folder protects everything below it. */
  path: string;
  /** The same place with its links resolved (an agent may reach it through either). */
  real: string;
  /** What it decides, for the refusal (`the project's hermes config`). */
  what: string;
  /**
   * Files a program reads only while this place is missing (bash's `~/.profile` after
   * `~/.bash_profile`): the protected-ground sandbox blocks a missing place with a mount point on
   * the disk, which would stand in front of them for every login shell started meanwhile, so for
   * this one it makes a stand-in that reads them (sandbox/stand-in.ts).
   */
  hides?: readonly string[];
}

/** Project config files that may sit in any folder of the project (config is searched from the working folder up). */
const CONFIG_FILE = /^(?:\.hermesrc(?:\.json|\.ya?ml)?|hermes\.config\.[cm]?[jt]s)$/;
/** A folder of that name anywhere in the project holds config or extensions. */
const CONFIG_FOLDER = '.hermes';

/**
 * The protected ground of the project at `root`, as this process's environment places the
 * user's folders (`HERMES_HOME`, `HOME`, `CLAUDE_CONFIG_DIR`, `CODEX_HOME`, `XDG_CONFIG_HOME`;
 * for the shells' start-up files `ZDOTDIR`, `XDG_DATA_HOME` and `BASH_ENV` too). `userCode`: the
 * user's own extensions that the user's config names outside `$HERMES_HOME` (`global_dir`,
 * `paths`), as a runtime found them (load-runtime.ts).
 */
export function protectedGround(
  root: string,
  env: Readonly<Record<string, string | undefined>> = process.env,
  userCode: readonly string[] = [],
): ProtectedGround {
  const project = resolve(root);
  const place = (path: string, what: string, hides?: readonly string[]): ProtectedPlace => ({
    path,
    real: resolveProjectPath(project, path).real,
    what,
    ...(hides === undefined ? {} : { hides }),
  });
  const hermesHome = hermesHomeOf(env);
  const places: ProtectedPlace[] = [
    place(
      hermesHome,
      'HERMES_HOME: the global config and extensions, the trust store and trusted copies, approvals, bundles, turns, logs and the daemon',
    ),
    place(join(project, '.hermes'), "the project's hermes config and extensions"),
    ...PROJECT_SETTINGS.map(([path, what]) => place(join(project, path), what)),
    // Which programs the MCP clients start as servers: a wrapped one unwrapped would run unguarded.
    ...projectMcpConfigs(project).map((config) => place(config.path, config.what)),
  ];
  // The user's folders as the environment names them and as they are by default: a project's
  // settings can hand the hook another HOME, CLAUDE_CONFIG_DIR, CODEX_HOME or XDG_CONFIG_HOME
  // (Claude Code passes their `env` on), which must not move the user's own settings off
  // protected ground. The hook in the user's settings sets HERMES_HOME, CLAUDE_CONFIG_DIR and
  // CODEX_HOME to the user's own, as install found them (command-hook/hook-wrapper.ts, PINS).
  const seen = new Set(places.map((p) => p.path));
  const add = (path: string, what: string, hides?: readonly string[]) => {
    if (seen.has(path)) return;
    seen.add(path);
    places.push(place(path, what, hides));
  };
  // Claude Code's config folder is `$CLAUDE_CONFIG_DIR`, else `~/.claude`; its user MCP servers
  // are in `.claude.json` there, else in the home (its own claude-config lookup).
  const folder = claudeConfigDir(env);
  if (folder !== undefined) {
    add(join(folder, 'settings.json'), "Claude Code's user hook settings");
    add(join(folder, 'settings.local.json'), "Claude Code's user hook settings");
    add(join(folder, '.claude.json'), "Claude Code's user config (the MCP servers it starts)");
  }
  for (const home of userHomes()) {
    add(join(home, '.claude', 'settings.json'), "Claude Code's user hook settings");
    add(join(home, '.claude', 'settings.local.json'), "Claude Code's user hook settings");
    add(codexHome(env) ?? join(home, '.codex'), "Codex's user hooks and config");
    add(join(home, '.codex'), "Codex's user hooks and config");
    add(join(home, '.cursor', 'hooks.json'), "Cursor's user hooks");
    const configHome = homeFolder(env.XDG_CONFIG_HOME, join(home, '.config'));
    add(join(configHome, 'opencode', 'plugins'), "OpenCode's user plugins");
    add(join(home, '.config', 'opencode', 'plugins'), "OpenCode's user plugins");
    add(join(home, '.gemini', 'config', 'plugins'), "Antigravity's user hook plugins");
    for (const configHome of new Set([userConfigHome(home, env), userConfigHome(home, {})])) {
      for (const config of userMcpConfigs(home, configHome)) add(config.path, config.what);
    }
    // The default home, whatever HERMES_HOME says now: the Hermes agent keeps its hook config
    // there, and a user who points HERMES_HOME elsewhere for a while comes back to it.
    add(join(home, '.hermes'), "the default HERMES_HOME and the Hermes agent's hook config");
    // What a login shell reads before the hook's command: Codex runs hooks with `$SHELL -lc`.
    const dataHome = homeFolder(env.XDG_DATA_HOME, join(home, '.local', 'share'));
    for (const [config, data] of [
      [configHome, dataHome],
      [join(home, '.config'), join(home, '.local', 'share')],
    ]) {
      for (const startup of shellStartupPlaces(home, config, data, env)) {
        add(startup.path, startup.what, startup.hides);
      }
    }
  }
  // The organisation's policy (docs/teams.md): usually root's, and never the agent's to change
  // even where an install left it writable; the file that names it too. Only where they exist:
  // a sandbox blocks a missing place by making its mount point, which a user cannot make in
  // /etc or a root-owned package — where the agent, as the user, cannot make them either.
  const managed =
    "the managed config and extensions, which the user's and the project's cannot override";
  const present: Array<[string, string]> = [
    [managedLocation().dir, managed],
    [systemManagedDir(), managed],
    [join(PACKAGE_ROOT, LOCATION_FILE), 'the file that names the managed folder'],
  ];
  for (const [path, what] of present) if (exists(path)) add(path, what);
  // What answers the hooks: this package (the hook client, the daemon, the shipped guards and
  // what they import) and the Node.js program running it, which a user-wide install often puts
  // in the home (nvm, a user npm prefix). Changed, every guard of the user would answer as the
  // agent wrote it. A copy inside the project is the project's code, held by trust instead
  // (docs/trust.md, What trust covers): a project's `npm install` must still update it.
  // The user's own guards, loaded from where the user's config names them, are the same kind of
  // thing; one inside the project is, like a copy of the package there, open while you work on it.
  const projectReal = resolveProjectPath(project, project).real;
  for (const [path, what] of [
    [PACKAGE_ROOT, 'the hermes-extensions package that answers your hooks'],
    [process.execPath, 'the Node.js program your hooks run with'],
    ...userCode.map((path) => [path, USER_CODE] as const),
  ] as const) {
    const answering = place(path, what);
    if (!within(project, answering.path) && !within(projectReal, answering.real)) {
      add(path, what);
    }
  }
  // A socket there answers every hook of the user: one of the agent's own would answer "allow".
  const daemons = "the hook daemon's sockets, which answer every hook";
  add(daemonFolder(env), daemons);
  add(daemonFolder({}), daemons);
  return { root: project, hermesHome, places };
}

/**
 * `$HERMES_HOME` as protected ground places it: what the framework keeps there beyond a turn (the
 * budgets' counts, the pause flag) is read from this one folder, so it is always on the ground
 * the agent may not change.
 */
export function hermesHomeOf(env: Readonly<Record<string, string | undefined>>): string {
  return homeFolder(env.HERMES_HOME, join(homedir(), '.hermes'));
}

const USER_CODE =
  'an extension of yours that your global config names (a change to it changes your guards)';

function within(folder: string, path: string): boolean {
  return path === folder || path.startsWith(folder.endsWith('/') ? folder : `${folder}/`);
}

function exists(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

/** `HOME` as the environment says, and the user's home as the system records it (passwd). */
function userHomes(): string[] {
  const homes = [homedir()];
  try {
    const recorded = userInfo().homedir;
    if (recorded !== '' && !homes.includes(recorded)) homes.push(recorded);
  } catch {
    // No passwd entry (a container's arbitrary uid): HOME is all there is.
  }
  return homes;
}

/** The agents' project-level hook settings. */
const PROJECT_SETTINGS: ReadonlyArray<readonly [string, string]> = [
  ['.claude/settings.json', "Claude Code's project hook settings"],
  ['.claude/settings.local.json', "Claude Code's local hook settings"],
  ['.codex', "Codex's project hooks and config"],
  ['.cursor/hooks.json', "Cursor's project hooks"],
  ['.opencode/plugins', "OpenCode's project plugins"],
  ['.agents/plugins', "Antigravity's project hook plugins"],
];

/** A folder named by the environment (as the framework reads it), else its default. */
function homeFolder(given: string | undefined, fallback: string): string {
  return namedFolder(given) ?? fallback;
}

/** What a path on protected ground is, and the place it lies in. */
export interface ProtectedHit {
  /** As the tool or command named it. */
  given: string;
  what: string;
}

/**
 * Whether a path a tool would write lies on protected ground: where its name says (`..` taken
 * off, links not followed) or where it really is (links followed, so `plans/h/config.yaml` with
 * `plans/h` a link to `~/.hermes` is the global config). A folder above protected ground counts
 * too (moving or removing `.claude` takes its settings with it), except the project root and
 * the home folder themselves. Relative paths start from `from` (default: the root).
 */
export function protectedHit(
  ground: ProtectedGround,
  given: string,
  from?: string | PathBase,
): ProtectedHit | undefined {
  const start: PathBase =
    from === undefined
      ? { lexical: ground.root, physical: ground.root }
      : typeof from === 'string'
        ? { lexical: resolve(ground.root, from), physical: resolve(ground.root, from) }
        : from;
  const expanded = given === '~' || given.startsWith('~/') ? homedir() + given.slice(1) : given;
  const lexical = resolve(start.lexical, expanded);
  const real = resolveProjectPath(ground.root, expanded, start).real;
  for (const candidate of lexical === real ? [lexical] : [lexical, real]) {
    const what = placeOf(ground, candidate);
    if (what !== undefined) return { given, what };
  }
  return undefined;
}

function placeOf(ground: ProtectedGround, path: string): string | undefined {
  for (const place of ground.places) {
    for (const at of place.path === place.real ? [place.path] : [place.path, place.real]) {
      if (path === at || path.startsWith(`${at}/`)) return place.what;
      if (at.startsWith(`${path}/`) && holdsNoOtherGround(ground, path)) return place.what;
    }
  }
  const inProject = below(ground.root, path);
  if (inProject !== undefined) {
    const segments = inProject.split('/');
    if (segments.includes(CONFIG_FOLDER)) return 'a hermes config folder (.hermes) of the project';
    if (CONFIG_FILE.test(basename(path))) return 'a hermes config file of the project';
    if (PROJECT_MCP_CONFIG.test(inProject)) return "an MCP client's config of the project";
  }
  return undefined;
}

/** A folder above protected ground counts as protected, unless it is the root, the home folder or above them. */
function holdsNoOtherGround(ground: ProtectedGround, path: string): boolean {
  const home = homedir();
  return (
    path !== ground.root &&
    path !== home &&
    !ground.root.startsWith(`${path}/`) &&
    !home.startsWith(`${path}/`) &&
    path !== '/'
  );
}

function below(root: string, path: string): string | undefined {
  return path.startsWith(`${root}/`) ? path.slice(root.length + 1) : undefined;
}
