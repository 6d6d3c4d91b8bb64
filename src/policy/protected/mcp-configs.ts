import { join, resolve } from 'node:path';
import { namedFolder } from './agent-folders.js';

/**
 * The MCP clients' config files: each decides which program its client starts as an MCP server,
 * so once `hermes mcp install` wraps a server in `hermes mcp proxy`, an agent that could edit one
 * would unwrap it. They are protected ground (ground.ts), and the files `hermes mcp install`
 * writes and `doctor` reads (docs/mcp.md, Installing into a client, with the clients' sources).
 */
export type McpClientName = 'claude-code' | 'claude-desktop' | 'cursor' | 'vscode';

export const MCP_CLIENT_NAMES: readonly McpClientName[] = [
  'claude-code',
  'claude-desktop',
  'cursor',
  'vscode',
];

export interface McpConfigFile {
  client: McpClientName;
  scope: 'project' | 'user';
  /** Absolute. */
  path: string;
  /** The object that maps a server's name to how it starts: VS Code's `servers`, the others' `mcpServers`. */
  key: 'mcpServers' | 'servers';
  /** What it decides, for a refusal and for `doctor`. */
  what: string;
}

/** The clients' project files, relative to the project root. */
const PROJECT: ReadonlyArray<readonly [McpClientName, string]> = [
  ['claude-code', '.mcp.json'],
  ['cursor', '.cursor/mcp.json'],
  ['vscode', '.vscode/mcp.json'],
];

const TITLES: Record<McpClientName, string> = {
  'claude-code': 'Claude Code',
  'claude-desktop': 'Claude Desktop',
  cursor: 'Cursor',
  vscode: 'VS Code',
};

export function mcpClientTitle(client: McpClientName): string {
  return TITLES[client];
}

/** An MCP config file's name wherever it is: a project's (any folder of it), or a user's. */
export const MCP_CONFIG_NAME =
  /(?:^|\/)(?:\.mcp\.json|\.claude\.json|\.cursor\/mcp\.json|\.vscode\/mcp\.json|claude_desktop_config\.json|User\/mcp\.json)$/;

/** A project's MCP config file, by the path below its root: in any of its folders. */
export const PROJECT_MCP_CONFIG =
  /(?:^|\/)(?:\.mcp\.json|\.cursor\/mcp\.json|\.vscode\/mcp\.json)$/;

/** The project's MCP config files (`project` absolute). */
export function projectMcpConfigs(project: string): McpConfigFile[] {
  return PROJECT.map(([client, file]) => ({
    client,
    scope: 'project',
    path: join(project, file),
    key: client === 'vscode' ? 'servers' : 'mcpServers',
    what: `${TITLES[client]}'s project MCP servers`,
  }));
}

/**
 * The user's MCP config files under `home`, with `configHome` the folder the platform keeps
 * applications' settings in (userConfigHome): Claude Code's `~/.claude.json` (its user-scope
 * `mcpServers`; in `claudeConfig`, its config folder, when `$CLAUDE_CONFIG_DIR` names one:
 * agent-folders.ts), Cursor's `~/.cursor/mcp.json`, Claude Desktop's `claude_desktop_config.json`
 * and VS Code's user `mcp.json` (stable and Insiders).
 */
export function userMcpConfigs(
  home: string,
  configHome: string,
  claudeConfig: string = home,
): McpConfigFile[] {
  const file = (client: McpClientName, path: string): McpConfigFile => ({
    client,
    scope: 'user',
    path,
    key: client === 'vscode' ? 'servers' : 'mcpServers',
    what: `${TITLES[client]}'s user MCP servers`,
  });
  return [
    file('claude-code', join(claudeConfig, '.claude.json')),
    file('claude-desktop', join(configHome, 'Claude', 'claude_desktop_config.json')),
    file('cursor', join(home, '.cursor', 'mcp.json')),
    file('vscode', join(configHome, 'Code', 'User', 'mcp.json')),
    file('vscode', join(configHome, 'Code - Insiders', 'User', 'mcp.json')),
  ];
}

/**
 * Where applications keep their settings on this platform, as Claude Desktop and VS Code place
 * them: `~/Library/Application Support` on macOS, `%APPDATA%` on Windows, `$XDG_CONFIG_HOME`
 * (`~/.config`) elsewhere. `env` undefined: the default, whatever the environment says.
 */
export function userConfigHome(
  home: string,
  env: Readonly<Record<string, string | undefined>> | undefined = process.env,
): string {
  if (process.platform === 'darwin') return join(home, 'Library', 'Application Support');
  if (process.platform === 'win32') {
    const appData = env?.APPDATA;
    return appData !== undefined && appData !== ''
      ? resolve(appData)
      : join(home, 'AppData', 'Roaming');
  }
  return namedFolder(env?.XDG_CONFIG_HOME) ?? join(home, '.config');
}
