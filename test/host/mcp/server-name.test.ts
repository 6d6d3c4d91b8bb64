import { describe, expect, it } from 'vitest';
import { defaultServerName } from '../../../src/host/mcp/server-name.js';

describe("an MCP server's default name", () => {
  it('is the package or script a runner starts, not the runner', () => {
    const cases: Array<[string, string[], string]> = [
      ['node', ['server.js'], 'server'],
      ['node', ['--enable-source-maps', './dist/index.mjs'], 'index'],
      ['npx', ['-y', '@modelcontextprotocol/server-filesystem', '/srv'], 'server-filesystem'],
      ['npx', ['-y', '@acme/mcp-db@2.1.0'], 'mcp-db'],
      ['/usr/local/bin/npm', ['exec', 'mcp-thing'], 'mcp-thing'],
      ['python3', ['-m', 'mcp_server_time'], 'mcp_server_time'],
      ['uvx', ['--from', 'git+https://x', 'mcp-server-git'], 'mcp-server-git'],
      ['uv', ['run', 'server.py'], 'server'],
      ['/opt/servers/db-server', ['--ro'], 'db-server'],
      ['node', [], 'node'],
    ];
    for (const [command, args, name] of cases) {
      expect(defaultServerName(command, args), `${command} ${args.join(' ')}`).toBe(name);
    }
  });
});
