/**
 * Every entry this package writes under `$HERMES_HOME`, in one place, so that `hermes extensions
 * uninstall` (src/cli/commands/uninstall.ts) removes all of them and nothing else: by default
 * `$HERMES_HOME` is `~/.hermes`, which is also the Hermes agent's home (its config.yaml, sessions,
 * logs, cache, other people's plugins), so deleting the folder is no answer. A new entry is added
 * here with the code that writes it; test/cli/uninstall.test.ts fails on a full run that leaves
 * a top-level entry this list does not name.
 *
 * - `removed`: this package's own state, removed whole.
 * - `plugin`: the Hermes agent plugin's folder, removed through its own uninstall
 *   (src/host/hermes-agent/plugin-install.ts), which also takes its `plugins.enabled` entry out.
 * - `kept`: what the user wrote (their own extensions, their settings): theirs to remove.
 */
export interface HomeEntry {
  /** Relative to `$HERMES_HOME`, `/`-separated. */
  readonly path: string;
  readonly fate: 'removed' | 'plugin' | 'kept';
  /** What it holds, and the code that writes it. */
  readonly holds: string;
}

/** `logs/daemon.log` and its rotated files (src/host/daemon/daemon-log.ts, DAEMON_LOG_KEEP). */
const DAEMON_LOGS = ['', '.1', '.2', '.3'].map((suffix) => `logs/daemon.log${suffix}`);

export const HOME_ENTRIES: readonly HomeEntry[] = [
  {
    path: 'trusted-projects.json',
    fate: 'removed',
    holds: 'the trust records of projects (src/trust/store.ts)',
  },
  {
    path: 'trusted-projects.json.lock',
    fate: 'removed',
    holds: "the trust records' lock, when a trust is under way (src/fs/locked-file.ts)",
  },
  {
    path: 'trusted-copies',
    fate: 'removed',
    holds: 'copies of the trusted files, to show what changed (src/trust/trusted-copies.ts)',
  },
  {
    path: 'approvals',
    fate: 'removed',
    holds: '"always for this project" approvals (src/host/approval-store.ts)',
  },
  {
    path: 'turns',
    fate: 'removed',
    holds: "the command hooks' state of each session's turn (src/host/command-hook/turn-store.ts)",
  },
  {
    path: 'limits',
    fate: 'removed',
    holds:
      'the counts of budgets beyond a turn, per session and per window (src/policy/budget/lasting.ts)',
  },
  {
    path: 'paused.json',
    fate: 'removed',
    holds: 'the kill switch, while `pause --all` is in force (src/config/pause.ts)',
  },
  {
    path: 'paused.json.lock',
    fate: 'removed',
    holds: "the kill switch's lock, while a pause or resume is under way (src/fs/locked-file.ts)",
  },
  {
    path: 'cache/jiti',
    fate: 'removed',
    holds: 'transpiled TypeScript (src/config/locations.ts, transpileCacheDir)',
  },
  {
    path: 'cache/bundles',
    fate: 'removed',
    holds: 'bundles of trusted project code (src/config/locations.ts, projectBundleDir)',
  },
  {
    path: 'cache/vitest',
    fate: 'removed',
    holds: 'the cache of `hermes extensions test-suite` (src/cli/commands/test-suite.ts)',
  },
  {
    path: 'mcp-installs.json',
    fate: 'removed',
    holds:
      "what `hermes mcp install` found in the MCP clients' configs, for uninstall (src/host/mcp/config/install-records.ts)",
  },
  {
    path: 'mcp-installs.json.lock',
    fate: 'removed',
    holds: "the install records' lock, when an install is under way (src/fs/locked-file.ts)",
  },
  {
    path: 'hook-commands',
    fate: 'removed',
    holds:
      "the program each agent's short hook line reads, one file per agent (src/host/command-hook/hook-line.ts)",
  },
  {
    path: 'sandbox',
    fate: 'removed',
    holds: "the OS sandbox's settings files (src/policy/sandbox/settings.ts)",
  },
  {
    path: 'ground-sandbox',
    fate: 'removed',
    holds:
      "the protected-ground sandbox's lock and empty folder (src/policy/sandbox/ground-sandbox.ts)",
  },
  ...DAEMON_LOGS.map(
    (path): HomeEntry => ({
      path,
      fate: 'removed',
      holds: "the hook daemon's log (src/host/daemon/daemon-log.ts)",
    }),
  ),
  {
    path: 'plugins/hermes-extensions',
    fate: 'plugin',
    holds: 'the Hermes agent plugin (src/host/hermes-agent/plugin-install.ts)',
  },
  {
    path: 'extensions',
    fate: 'kept',
    holds: 'your own global extensions (`hermes extensions init`)',
  },
  {
    // Shared with the Hermes agent: its shell hooks (`hooks:`) and the plugin's `plugins.enabled`
    // entry are taken out by their uninstalls; `extensions:` is the user's own settings.
    path: 'config.yaml',
    fate: 'kept',
    holds:
      "the Hermes agent's config; hermes' hooks and plugin entry are taken out of it, your extensions: settings stay",
  },
];

/**
 * The folders this package's entries sit in that the Hermes agent uses too (`logs/`, `cache/`,
 * `plugins/`): removed after the entries only when nothing is left in them.
 */
export function sharedParents(): string[] {
  const parents = HOME_ENTRIES.map((entry) => entry.path.split('/').slice(0, -1).join('/'));
  return [...new Set(parents.filter((parent) => parent !== ''))];
}
