import { existsSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { claudeConfigDir } from '../../../policy/protected/agent-folders.js';
import {
  type McpClientName,
  type McpConfigFile,
  mcpClientTitle,
  projectMcpConfigs,
  userConfigHome,
  userMcpConfigs,
} from '../../../policy/protected/mcp-configs.js';
import {
  McpConfigError,
  type McpConfigText,
  readMcpConfig,
  writeMcpConfig,
} from './config-file.js';
import { installRecord, keepInstallRecord } from './install-records.js';
import {
  addServer,
  RAW,
  removeServer,
  replaceServer,
  serversSpan,
  serverText,
} from './json-splice.js';
import { entryWords, type ServerEntry, unwrapEntry, wrapEntry, wrappedServer } from './wrapped.js';

export type McpScope = 'project' | 'user';

/** The config file `hermes mcp install <client> --scope SCOPE` writes, and the folder below which no link is followed. */
export interface McpInstallTarget extends McpConfigFile {
  base: string;
}

/**
 * The client's config file for `scope`: Claude Desktop has only the user's; VS Code's user file is
 * the stable release's, or Insiders' when only Insiders' folder is there.
 */
export function installTarget(
  client: McpClientName,
  scope: McpScope | undefined,
  project: string,
): McpInstallTarget {
  const chosen = scope ?? (client === 'claude-desktop' ? 'user' : 'project');
  if (chosen === 'project') {
    const file = projectMcpConfigs(project).find((config) => config.client === client);
    if (file === undefined)
      throw new McpConfigError(
        `${mcpClientTitle(client)} has no project MCP config; use --scope user`,
      );
    return { ...file, base: project };
  }
  const home = homedir();
  const files = userMcpConfigs(home, userConfigHome(home), claudeConfigDir()).filter(
    (c) => c.client === client,
  );
  const file =
    files.find((config) => existsSync(config.path)) ??
    files.find((config) => existsSync(dirname(config.path))) ??
    (files[0] as McpConfigFile);
  return { ...file, base: home };
}

/** What to install: a new server started by `command args…`, or the existing entry `wrap`. */
export type InstallRequest =
  | { kind: 'new'; name: string; command: string; args: string[] }
  | { kind: 'wrap'; name: string };

/** The entries of servers in `read` (VS Code's `servers`, the others' `mcpServers`), made when absent. */
function serversOf(read: McpConfigText, key: string, make: boolean): Record<string, unknown> {
  const servers = read.config[key];
  if (servers === undefined && make) {
    const made: Record<string, unknown> = {};
    read.config[key] = made;
    return made;
  }
  if (servers === undefined) return {};
  if (servers === null || typeof servers !== 'object' || Array.isArray(servers))
    throw new McpConfigError(
      `${read.file}: "${key}" is not an object of servers; hermes does not replace what it does not understand, so nothing was written`,
    );
  return servers as Record<string, unknown>;
}

function entryIn(
  read: McpConfigText,
  servers: Record<string, unknown>,
  name: string,
): ServerEntry | undefined {
  const entry = servers[name];
  if (entry === undefined) return undefined;
  if (entry === null || typeof entry !== 'object' || Array.isArray(entry))
    throw new McpConfigError(
      `${read.file}: the server "${name}" is not an object; nothing was written`,
    );
  return entry as ServerEntry;
}

/**
 * Wraps a server in the proxy in `target`'s file and keeps what was there in the install records
 * (`$HERMES_HOME`): the record first, so no wrapped entry is ever without one. `proxyArgv` is the
 * installed hermes's `mcp proxy --name NAME …` line. Returns what to tell the user.
 */
export async function installServer(
  target: McpInstallTarget,
  request: InstallRequest,
  proxyArgv: readonly string[],
  home: string,
): Promise<string> {
  const read = readMcpConfig(target.path, target.base);
  const servers = serversOf(read, target.key, true);
  const existing = entryIn(read, servers, request.name);
  const title = mcpClientTitle(target.client);
  let original: ServerEntry | null;
  let base: ServerEntry;
  if (request.kind === 'new') {
    if (existing !== undefined) {
      const wrapped = wrappedServer(existing);
      if (
        wrapped !== undefined &&
        isDeepStrictEqual([wrapped.command, ...wrapped.args], [request.command, ...request.args])
      )
        return `${target.path} already starts "${request.name}" through hermes mcp proxy; nothing changed.`;
      throw new McpConfigError(
        `${target.path} already has a server "${request.name}"; to put it behind the extensions, run this with --wrap ${request.name} instead of a command, or choose another --name`,
      );
    }
    original = null;
    // VS Code requires the transport's type; the others take a command as stdio.
    base = {
      ...(target.client === 'vscode' ? { type: 'stdio' } : {}),
      command: request.command,
      args: request.args,
    };
  } else {
    if (existing === undefined)
      throw new McpConfigError(
        `${target.path} has no server "${request.name}"${listed(servers)}; nothing was written`,
      );
    if (wrappedServer(existing) !== undefined)
      return `${target.path}: "${request.name}" already runs through hermes mcp proxy; nothing changed.`;
    if (entryWords(existing) === undefined)
      throw new McpConfigError(
        `${target.path}: "${request.name}" is not started as a program (command and args): hermes mcp proxy wraps a server on stdio, so nothing was written`,
      );
    original = existing;
    base = existing;
  }
  const wrapped = wrapEntry(base, proxyArgv);
  const span = serversSpan(read.text, target.key);
  const originalText =
    original === null || !span ? undefined : serverText(read.text, span, request.name);
  await keepInstallRecord(home, target.path, request.name, {
    original,
    wrapped,
    ...(originalText === undefined ? {} : { originalText }),
    ...(read.text === '' ? { fileWasAbsent: true } : {}),
  });
  servers[request.name] = wrapped;
  const edit = original === null ? addServer : replaceServer;
  const spliced =
    span && edit(read.text, span, request.name, wrapped, read.indent || '  ', read.eol);
  writeMcpConfig(read, spliced, target.scope === 'project' ? 0o644 : 0o600);
  return `${request.kind === 'new' ? 'Added' : 'Wrapped'} the MCP server "${request.name}" in ${target.path}: ${title} now starts it through hermes mcp proxy, so its tool calls go through the extensions. Restart ${title} (or reconnect the server) to use it; hermes mcp uninstall ${target.client} --name ${request.name} puts back what was there.`;
}

/**
 * Takes the proxy out of server `name` in `target`'s file: the entry install found there comes
 * back as it was (none: the server is removed) while the entry is still the one install wrote;
 * an entry changed since keeps its changes, with its command the words after `--` again.
 */
export async function uninstallServer(
  target: McpInstallTarget,
  name: string,
  home: string,
): Promise<string> {
  const read = readMcpConfig(target.path, target.base);
  const servers = serversOf(read, target.key, false);
  const entry = entryIn(read, servers, name);
  if (entry === undefined)
    throw new McpConfigError(
      `${target.path} has no server "${name}"${listed(servers)}; nothing changed`,
    );
  const wrapped = wrappedServer(entry);
  if (wrapped === undefined)
    throw new McpConfigError(
      `${target.path}: "${name}" does not run through hermes mcp proxy; nothing changed`,
    );
  const record = installRecord(home, target.path, name);
  const span = serversSpan(read.text, target.key);
  const layout = [read.indent || '  ', read.eol] as const;
  let said: string;
  let spliced: string | undefined;
  if (record !== undefined && isDeepStrictEqual(record.wrapped, entry)) {
    if (record.original === null) {
      delete servers[name];
      spliced = span && removeServer(read.text, span, name);
      said = `Removed the MCP server "${name}" that hermes mcp install added to ${target.path}.`;
      if (record.fileWasAbsent && isDeepStrictEqual(read.config, { [target.key]: {} })) {
        // The file install made holds nothing else: it goes, as it was not there.
        rmSync(target.path);
        await keepInstallRecord(home, target.path, name, undefined);
        return `${said} Restart ${mcpClientTitle(target.client)} (or reconnect the server) for it to take effect.`;
      }
    } else {
      servers[name] = record.original;
      const raw = record.originalText;
      const kept = raw !== undefined && sameJson(raw, record.original) ? { [RAW]: raw } : undefined;
      spliced = span && replaceServer(read.text, span, name, kept ?? record.original, ...layout);
      said = `Restored the MCP server "${name}" in ${target.path} as it was before hermes mcp install.`;
    }
  } else {
    servers[name] = unwrapEntry(entry, wrapped);
    spliced = span && replaceServer(read.text, span, name, servers[name], ...layout);
    said = `Unwrapped the MCP server "${name}" in ${target.path}: it starts ${[wrapped.command, ...wrapped.args].join(' ')} again (the entry had changed since hermes mcp install, or was not installed with this HERMES_HOME, so it keeps its other keys as they are now).`;
  }
  writeMcpConfig(read, spliced, 0o600);
  await keepInstallRecord(home, target.path, name, undefined);
  return `${said} Restart ${mcpClientTitle(target.client)} (or reconnect the server) for it to take effect.`;
}

function listed(servers: Record<string, unknown>): string {
  const names = Object.keys(servers);
  return names.length === 0
    ? ' (it has none)'
    : ` (it has ${names.map((n) => `"${n}"`).join(', ')})`;
}

/** `text` is the JSON of `value` (a record's text not edited by hand). */
function sameJson(text: string, value: unknown): boolean {
  try {
    return isDeepStrictEqual(JSON.parse(text), value);
  } catch {
    return false;
  }
}
