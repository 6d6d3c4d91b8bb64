import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterEach } from 'vitest';
import { write } from './fixtures.js';
import { bin, root } from './run-bin.js';

/** The reference filesystem server from npm (a devDependency), run as an MCP client runs it. */
export const FILESYSTEM_SERVER = join(
  root,
  'node_modules/@modelcontextprotocol/server-filesystem/dist/index.js',
);

const clients: Client[] = [];
// A test that fails half-way leaves no proxy nor server behind.
afterEach(async () => {
  await Promise.allSettled(clients.splice(0).map((client) => client.close()));
});

export interface Connected {
  client: Client;
  /** What the proxy (and the server it wraps) wrote to stderr so far. */
  stderr: () => string;
}

/** The SDK's own client over stdio, connected to `command args…` with `env` on top of this one's. */
export async function connectMcp(
  command: string,
  args: string[],
  env: Record<string, string> = {},
  capabilities: ConstructorParameters<typeof Client>[1] = {},
): Promise<Connected> {
  const transport = new StdioClientTransport({
    command,
    args,
    env: { ...(process.env as Record<string, string>), ...env },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk) => {
    stderr += chunk;
  });
  const client = new Client({ name: 'hermes-test-client', version: '1.0.0' }, capabilities);
  clients.push(client);
  await client.connect(transport);
  return { client, stderr: () => stderr };
}

/** `hermes mcp proxy --cwd project -- server…` with `home` as $HERMES_HOME, connected. */
export function proxied(
  home: string,
  project: string,
  server: string[],
  capabilities?: ConstructorParameters<typeof Client>[1],
): Promise<Connected> {
  return connectMcp(
    process.execPath,
    [bin, 'mcp', 'proxy', '--cwd', project, '--', ...server],
    { HERMES_HOME: home },
    capabilities,
  );
}

/** The filesystem server serving `folder`, as a command line. */
export function filesystemServer(folder: string): string[] {
  return [process.execPath, FILESYSTEM_SERVER, folder];
}

/**
 * A small MCP server written with the SDK, as a command line: a resource (`memo://greeting`), a
 * prompt, a tool `echo`, and a tool `crash` that ends the server's process mid-call.
 */
export function smallServer(folder: string): string[] {
  const sdk = (path: string) =>
    JSON.stringify(join(root, 'node_modules/@modelcontextprotocol/sdk/dist/esm', path));
  write(folder, {
    'small-server.mjs': `import { McpServer } from ${sdk('server/mcp.js')};
import { StdioServerTransport } from ${sdk('server/stdio.js')};
import { z } from ${JSON.stringify(join(root, 'node_modules/zod/index.js'))};
const server = new McpServer({ name: 'small', version: '1.2.3' });
server.registerResource('greeting', 'memo://greeting', { mimeType: 'text/plain', description: 'a memo' }, async (uri) => ({
  contents: [{ uri: uri.href, mimeType: 'text/plain', text: 'hello from the small server' }],
}));
server.registerPrompt('review', { description: 'review a file', argsSchema: { file: z.string() } }, ({ file }) => ({
  messages: [{ role: 'user', content: { type: 'text', text: 'review ' + file } }],
}));
server.registerTool('echo', { description: 'says it back', inputSchema: { text: z.string() } }, async ({ text }) => ({
  content: [{ type: 'text', text }],
}));
server.registerTool('crash', { description: 'ends the server' }, async () => process.exit(3));
await server.connect(new StdioServerTransport());
`,
  });
  return [process.execPath, join(folder, 'small-server.mjs')];
}
