import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { claudeConfigDir } from '../../../policy/protected/agent-folders.js';
import {
  type McpConfigFile,
  projectMcpConfigs,
  userConfigHome,
  userMcpConfigs,
} from '../../../policy/protected/mcp-configs.js';
import { parseJson } from './config-file.js';
import { entryWords, type ServerEntry, type Wrapped, wrappedServer } from './wrapped.js';

/** One server an MCP client's config starts, as `doctor` shows it. */
export interface SeenServer {
  config: McpConfigFile;
  name: string;
  /** What it wraps, when it runs through `hermes mcp proxy`. */
  wrapped?: Wrapped;
  /** Started as a program (command and args); false for a remote server (a URL). */
  program: boolean;
  /** The wrapping line's program and script (absolute paths) that are not there any more. */
  missing: string[];
}

export interface UnreadConfig {
  config: McpConfigFile;
  problem: string;
}

/**
 * The servers in the MCP clients' configs that exist: the project's (`project` absolute) and the
 * user's. Links are followed here: reading changes nothing.
 */
export function seenMcpServers(project: string): { servers: SeenServer[]; unread: UnreadConfig[] } {
  const home = homedir();
  const configs = [
    ...projectMcpConfigs(project),
    ...userMcpConfigs(home, userConfigHome(home), claudeConfigDir()),
  ];
  const servers: SeenServer[] = [];
  const unread: UnreadConfig[] = [];
  for (const config of configs) {
    if (!existsSync(config.path)) continue;
    let parsed: unknown;
    try {
      const text = readFileSync(config.path, 'utf8');
      if (text.trim() === '') continue;
      parsed = parseJson(config.path, text);
    } catch (error) {
      unread.push({ config, problem: (error as Error).message });
      continue;
    }
    const entries = (parsed as Record<string, unknown> | null)?.[config.key];
    if (entries === null || typeof entries !== 'object' || Array.isArray(entries)) continue;
    for (const [name, entry] of Object.entries(entries as Record<string, unknown>)) {
      if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) continue;
      const wrapped = wrappedServer(entry as ServerEntry);
      servers.push({
        config,
        name,
        ...(wrapped === undefined ? {} : { wrapped }),
        program: entryWords(entry as ServerEntry) !== undefined,
        missing: wrapped === undefined ? [] : missingPaths(entry as ServerEntry),
      });
    }
  }
  return { servers, unread };
}

/** The absolute paths before `mcp proxy` (node, bin/hermes.js) that do not exist. */
function missingPaths(entry: ServerEntry): string[] {
  const words = entryWords(entry) ?? [];
  const proxy = words.indexOf('mcp');
  return words
    .slice(0, proxy < 0 ? 0 : proxy)
    .filter((word) => word.startsWith('/') && !existsSync(word));
}
