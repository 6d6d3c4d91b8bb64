import { headersFromEnv, isLoopback, urlProblem } from '../../declared/remote.js';
import { defaultServerName } from '../../host/mcp/server-name.js';
import type { WrappedServer } from '../../host/mcp/wrapped.js';
import { CliError } from '../io.js';

export interface McpProxyFlags {
  cwd?: string;
  name?: string;
  http?: string;
  host?: string;
  sessionTimeout?: string;
  url?: string;
  headerEnv?: string[];
  allowInsecureUrl?: boolean;
}

/** What `hermes mcp proxy`'s words and flags ask for, checked. */
export interface McpProxyPlan {
  name: string;
  wrapped: WrappedServer;
  /** Served over Streamable HTTP at this port and address; on stdio when undefined. */
  http?: { port: number; host: string; idleMs: number };
}

/** Where `--http` binds without `--host`: this machine only. */
export const DEFAULT_HOST = '127.0.0.1';

/**
 * How long an HTTP session may have no request open before its client is taken to have gone
 * (`--session-timeout`, seconds): long enough for a person away from a client that holds no event
 * stream, short enough that abandoned sessions do not pile up their wrapped servers.
 */
const DEFAULT_SESSION_TIMEOUT_S = 30 * 60;

/**
 * The proxy's plan from its command line: the server to wrap (the command after `--`, or
 * `--url`, never both) and how clients reach the proxy. A remote server's URL follows the rule of
 * every remote service the framework sends calls to (src/declared/remote.ts): HTTPS, or plain HTTP
 * to this machine, unless `--allow-insecure-url`; its headers come from the environment the
 * client starts the proxy with (`--header-env`), never from a file of the project.
 */
export function mcpProxyPlan(
  words: readonly string[],
  flags: McpProxyFlags,
  env: NodeJS.ProcessEnv,
): McpProxyPlan {
  const [command, ...args] = words;
  let wrapped: WrappedServer;
  let defaultName: string;
  if (flags.url !== undefined) {
    if (command !== undefined) {
      throw usage(
        'mcp proxy wraps either a command (after --) or a remote server (--url), not both',
      );
    }
    const url = remoteUrl(flags.url, flags.allowInsecureUrl === true);
    wrapped = { url, headers: remoteHeaders(flags.headerEnv ?? [], env) };
    defaultName = url.hostname;
  } else {
    if (command === undefined || command === '') {
      throw usage(
        'mcp proxy needs the MCP server to wrap: hermes mcp proxy -- <command> [args…], or --url URL',
      );
    }
    if (flags.headerEnv !== undefined || flags.allowInsecureUrl === true) {
      throw usage('--header-env and --allow-insecure-url are for a remote server (--url)');
    }
    wrapped = { command, args };
    defaultName = defaultServerName(command, args);
  }
  const name = flags.name ?? defaultName;
  if (name === '') throw usage('--name must not be empty');
  if (flags.http === undefined) {
    for (const [flag, given] of [
      ['--host', flags.host],
      ['--session-timeout', flags.sessionTimeout],
    ] as const) {
      if (given !== undefined) throw usage(`${flag} needs --http PORT: it is for serving HTTP`);
    }
    return { name, wrapped };
  }
  const timeout =
    flags.sessionTimeout === undefined
      ? DEFAULT_SESSION_TIMEOUT_S
      : seconds('--session-timeout', flags.sessionTimeout);
  return {
    name,
    wrapped,
    http: { port: port(flags.http), host: flags.host ?? DEFAULT_HOST, idleMs: timeout * 1000 },
  };
}

function seconds(flag: string, text: string): number {
  if (!/^\d+$/.test(text) || Number(text) < 1) {
    throw usage(`${flag} ${text} is not a number of seconds (1 or more)`);
  }
  return Number(text);
}

/** Whether the proxy bound to `host` can be reached from other machines. */
export function reachableFromOthers(host: string): boolean {
  return !isLoopback(host.includes(':') && !host.startsWith('[') ? `[${host}]` : host);
}

function remoteUrl(text: string, allowInsecure: boolean): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw usage(`--url ${text} is not a URL: give the remote MCP server's endpoint, https://…`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw usage(`--url ${text} is not an http: or https: URL (Streamable HTTP is the transport)`);
  }
  const problem = urlProblem(url.href, allowInsecure, 'pass --allow-insecure-url');
  if (problem !== undefined) throw usage(`--url: ${problem}`);
  return url;
}

function remoteHeaders(pairs: readonly string[], env: NodeJS.ProcessEnv): Record<string, string> {
  const names: Record<string, string> = {};
  for (const pair of pairs) {
    const match = /^([A-Za-z0-9!#$%&'*+.^_`|~-]+)=([A-Za-z_][A-Za-z0-9_]*)$/.exec(pair);
    if (match === null) {
      throw usage(
        `--header-env ${pair}: write HEADER=VARIABLE, the header to send and the environment variable that holds its value`,
      );
    }
    names[match[1] as string] = match[2] as string;
  }
  try {
    return headersFromEnv(names, env);
  } catch (error) {
    throw usage(`--header-env: ${(error as Error).message.replace(/^headers_from_env\./, '')}`);
  }
}

function port(text: string): number {
  const value = Number(text);
  if (!/^\d+$/.test(text) || value > 65535) {
    throw usage(`--http ${text} is not a port: a number from 1 to 65535 (0: one the system picks)`);
  }
  return value;
}

function usage(message: string): CliError {
  return new CliError(message, 2);
}
