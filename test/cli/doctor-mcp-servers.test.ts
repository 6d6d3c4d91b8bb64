import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tree } from '../support/fixtures.js';
import { built } from '../support/run-bin.js';
import { hermesWith } from './hermes-cli.js';

type Check = { level: string; subject: string; message: string; fix?: string };

function put(file: string, text: string): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text);
}

/** doctor lists the servers the MCP clients' configs start, wrapped in the proxy or not. */
describe.runIf(built)('hermes extensions doctor: the MCP servers the clients start', () => {
  it('lists wrapped and unwrapped servers, a wrapping that cannot start, and a config it cannot read', async () => {
    const user = tree({ '.keep': '' });
    const home = join(user, '.hermes');
    const project = tree({ '.git/HEAD': '' });
    const env = { HOME: user, XDG_CONFIG_HOME: join(user, '.config') };
    const installed = await hermesWith(
      env,
      home,
      'mcp',
      'install',
      'claude-code',
      '--cwd',
      project,
      '--name',
      'fs',
      '--',
      'npx',
      '-y',
      '@modelcontextprotocol/server-filesystem',
      project,
    );
    expect(installed.code, installed.stderr).toBe(0);
    put(
      join(user, '.cursor/mcp.json'),
      JSON.stringify({
        mcpServers: {
          db: { command: 'db-server' },
          gone: {
            command: '/nowhere/node',
            args: ['/nowhere/bin/hermes.js', 'mcp', 'proxy', '--', 'x'],
          },
        },
      }),
    );
    put(
      join(project, '.vscode/mcp.json'),
      '{"servers": {"remote": {"type": "http", "url": "https://x"}}}',
    );
    put(join(user, '.config/Claude/claude_desktop_config.json'), '{"mcpServers": {,}}');
    const doctor = await hermesWith(env, home, 'extensions', 'doctor', '--json', '--cwd', project);
    const { checks } = JSON.parse(doctor.stdout) as { checks: Check[] };
    const line = (subject: string) => checks.find((check) => check.subject === subject);
    expect(line('MCP server fs')).toMatchObject({ level: 'ok' });
    expect(line('MCP server fs')?.message).toContain('wrapped: Claude Code, project');
    expect(line('MCP server db')).toMatchObject({
      level: 'info',
      fix: 'hermes mcp install cursor --scope user --wrap db',
    });
    expect(line('MCP server db')?.message).toContain('not wrapped');
    expect(line('MCP server gone')?.level).toBe('error');
    expect(line('MCP server gone')?.message).toContain('/nowhere/node');
    expect(line('MCP server remote')?.message).toContain('by URL');
    const desktop = line('Claude Desktop MCP config');
    expect(desktop?.level).toBe('warning');
    expect(desktop?.message).toContain('claude_desktop_config.json is not valid JSON at line 1');
  });
});
