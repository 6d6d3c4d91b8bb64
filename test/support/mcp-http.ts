import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach } from 'vitest';
import { bin, root } from './run-bin.js';

const children: ChildProcess[] = [];
const clients: Client[] = [];
// A test that fails half-way leaves no proxy nor server behind.
afterEach(async () => {
  await Promise.allSettled(clients.splice(0).map((client) => client.close()));
  for (const child of children.splice(0)) child.kill();
});

export interface Listening {
  /** The URL the process said it serves MCP on. */
  url: string;
  /** What it wrote to stderr so far. */
  stderr: () => string;
}

/**
 * `command args…` started with `env` on top of this one's, once it has printed the URL it serves
 * on (on stdout or stderr): an HTTP server's line `… http://HOST:PORT/mcp`.
 */
function listening(
  command: string,
  args: string[],
  env: Record<string, string> = {},
): Promise<Listening> {
  const child = spawn(command, args, { env: { ...process.env, ...env } });
  children.push(child);
  let stderr = '';
  let stdout = '';
  return new Promise((resolve, reject) => {
    const look = () => {
      const url = /(https?:\/\/\S+\/mcp)\b/.exec(stdout + stderr)?.[1];
      if (url !== undefined) resolve({ url, stderr: () => stderr });
    };
    child.stdout?.on('data', (chunk) => {
      stdout += chunk;
      look();
    });
    child.stderr?.on('data', (chunk) => {
      stderr += chunk;
      look();
    });
    child.on('exit', (code) =>
      reject(new Error(`${command} ${args.join(' ')} exited (${code}) before serving:\n${stderr}`)),
    );
  });
}

/** The test's MCP server over Streamable HTTP (test/support/mcp-http-server.mjs), running. */
export function httpMcpServer(): Promise<Listening> {
  return listening(process.execPath, [join(root, 'test/support/mcp-http-server.mjs')]);
}

/** `hermes mcp proxy --http 0 --cwd project args…` with `home` as $HERMES_HOME, serving. */
export function proxyOverHttp(home: string, project: string, args: string[]): Promise<Listening> {
  return listening(
    process.execPath,
    [bin, 'mcp', 'proxy', '--http', '0', '--cwd', project, ...args],
    {
      HERMES_HOME: home,
    },
  );
}

/** The SDK's own client over Streamable HTTP, connected to `url` (a session of its own). */
export async function connectHttp(
  url: string,
  capabilities: ConstructorParameters<typeof Client>[1] = {},
): Promise<Client> {
  const client = new Client({ name: 'hermes-test-client', version: '1.0.0' }, capabilities);
  clients.push(client);
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}
