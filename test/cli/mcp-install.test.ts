import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tree } from '../support/fixtures.js';
import { bin, built } from '../support/run-bin.js';
import { hermesWith } from './hermes-cli.js';

/**
 * `hermes mcp install` and `uninstall` through the real command line, on real config files in a
 * temporary home and project (docs/mcp.md, Installing into a client).
 */
function setup() {
  const user = tree({ '.keep': '' });
  const home = join(user, '.hermes');
  const project = tree({ '.git/HEAD': '' });
  // `--cwd` before the words after `--`, which are the server's.
  const run = (group: string, command: string, ...rest: string[]) =>
    hermesWith(
      { HOME: user, XDG_CONFIG_HOME: join(user, '.config') },
      home,
      group,
      command,
      '--cwd',
      project,
      ...rest,
    );
  return { user, home, project, run };
}

function put(file: string, text: string): string {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text);
  return text;
}

const read = (file: string) => JSON.parse(readFileSync(file, 'utf8'));

describe.runIf(built)('hermes mcp install and uninstall', { timeout: 120_000 }, () => {
  it("adds a wrapped server to Claude Code's .mcp.json, keeping the rest, and uninstall gives back the file as it was", async () => {
    const { project, run } = setup();
    const file = join(project, '.mcp.json');
    const before = put(
      file,
      '{\n    "mcpServers": {\n        "other": {\n            "command": "other-server",\n            "args": ["--a", "b"]\n        }\n    },\n    "extra": true\n}\n',
    );
    const added = await run('mcp', 'install', 'claude-code', '--', 'node', 'server.js', '--flag');
    expect(added.stderr).toBe('');
    expect(added.code).toBe(0);
    expect(added.stdout).toContain('"server"');
    const text = readFileSync(file, 'utf8');
    // Only the new server is written: the other one's one-line list stays as it was.
    expect(text).toContain(
      '\n    "mcpServers": {\n        "other": {\n            "command": "other-server",\n            "args": ["--a", "b"]\n        },\n        "server": {\n            "command": ',
    );
    const config = read(file);
    expect(config.extra).toBe(true);
    expect(config.mcpServers.other).toEqual({ command: 'other-server', args: ['--a', 'b'] });
    expect(config.mcpServers.server).toEqual({
      command: process.execPath,
      args: [
        bin,
        'mcp',
        'proxy',
        '--name',
        'server',
        '--cwd',
        project,
        '--',
        'node',
        'server.js',
        '--flag',
      ],
    });
    // The same again changes nothing; another server under that name is refused.
    expect(
      (await run('mcp', 'install', 'claude-code', '--', 'node', 'server.js', '--flag')).stdout,
    ).toContain('nothing changed');
    const clash = await run('mcp', 'install', 'claude-code', '--name', 'server', '--', 'other');
    expect(clash.code).toBe(1);
    expect(clash.stderr).toContain('--wrap server');
    const removed = await run('mcp', 'uninstall', 'claude-code', '--name', 'server');
    expect(removed.code).toBe(0);
    expect(readFileSync(file, 'utf8')).toBe(before);
  });

  it("wraps Cursor's user server in place and restores it exactly", async () => {
    const { user, run } = setup();
    const file = join(user, '.cursor/mcp.json');
    const before = put(
      file,
      '{\n  "mcpServers": {\n    "fs": {\n      "command": "npx",\n      "args": ["-y", "@modelcontextprotocol/server-filesystem", "/srv"],\n      "env": {"A": "1"}\n    }\n  }\n}\n',
    );
    const wrapped = await run('mcp', 'install', 'cursor', '--scope', 'user', '--wrap', 'fs');
    expect(wrapped.stderr).toBe('');
    expect(read(file).mcpServers.fs).toEqual({
      command: process.execPath,
      args: [
        bin,
        'mcp',
        'proxy',
        '--name',
        'fs',
        '--',
        'npx',
        '-y',
        '@modelcontextprotocol/server-filesystem',
        '/srv',
      ],
      env: { A: '1' },
    });
    expect((await run('mcp', 'uninstall', 'cursor', '--scope', 'user', '--name', 'fs')).code).toBe(
      0,
    );
    expect(readFileSync(file, 'utf8')).toBe(before);
  });

  // Claude Code reads its user MCP servers from `.claude.json` in $CLAUDE_CONFIG_DIR when that is set.
  it("writes Claude Code's user servers into $CLAUDE_CONFIG_DIR/.claude.json when that is set", async () => {
    const { user, home, project } = setup();
    const config = join(user, 'claude-work');
    const run = (...args: string[]) =>
      hermesWith(
        { HOME: user, XDG_CONFIG_HOME: join(user, '.config'), CLAUDE_CONFIG_DIR: config },
        home,
        'mcp',
        ...args,
      );
    const added = await run(
      'install',
      'claude-code',
      '--scope',
      'user',
      '--cwd',
      project,
      '--',
      'x',
    );
    expect(added.code, added.stderr).toBe(0);
    expect(added.stdout).toContain(join(config, '.claude.json'));
    expect(read(join(config, '.claude.json')).mcpServers.x.args).toContain('proxy');
    expect(existsSync(join(user, '.claude.json'))).toBe(false);
    const removed = await run(
      'uninstall',
      'claude-code',
      '--scope',
      'user',
      '--cwd',
      project,
      '--name',
      'x',
    );
    expect(removed.code, removed.stderr).toBe(0);
    // Given back as it was: not there.
    expect(existsSync(join(config, '.claude.json'))).toBe(false);
  });

  it("writes VS Code's `servers` with a stdio type, and Claude Desktop's user config", async () => {
    const { user, project, run } = setup();
    expect((await run('mcp', 'install', 'vscode', '--', 'npx', '-y', '@acme/mcp-db@2')).code).toBe(
      0,
    );
    const vscode = read(join(project, '.vscode/mcp.json'));
    expect(vscode.mcpServers).toBeUndefined();
    expect(vscode.servers['mcp-db']).toMatchObject({ type: 'stdio', command: process.execPath });
    expect(
      (await run('mcp', 'install', 'claude-desktop', '--', 'uvx', 'mcp-server-git')).code,
    ).toBe(0);
    const desktop = read(join(user, '.config/Claude/claude_desktop_config.json'));
    expect(desktop.mcpServers['mcp-server-git'].args).toEqual([
      bin,
      'mcp',
      'proxy',
      '--name',
      'mcp-server-git',
      '--',
      'uvx',
      'mcp-server-git',
    ]);
    // A file install made, left with no server, goes.
    expect((await run('mcp', 'uninstall', 'vscode', '--name', 'mcp-db')).code).toBe(0);
    expect(existsSync(join(project, '.vscode/mcp.json'))).toBe(false);
    const project2 = await run('mcp', 'install', 'claude-desktop', '--scope', 'project', '--', 'x');
    expect(project2.code).toBe(1);
    expect(project2.stderr).toContain('--scope user');
  });

  it('refuses a config that does not parse, naming the file and where, and writes nothing', async () => {
    const { project, run } = setup();
    const file = join(project, '.cursor/mcp.json');
    const before = put(file, '{\n  "mcpServers": {\n    "a": { "command": "x" },\n  }\n}\n');
    const got = await run('mcp', 'install', 'cursor', '--', 'node', 'server.js');
    expect(got.code).toBe(1);
    expect(got.stderr).toContain(file);
    expect(got.stderr).toMatch(/line 4, column 3/);
    expect(readFileSync(file, 'utf8')).toBe(before);
  });

  it('does not write through a symbolic link, and says where it leads', async () => {
    const { project, run } = setup();
    const elsewhere = tree({ 'shared.json': '{"mcpServers":{}}\n' });
    symlinkSync(join(elsewhere, 'shared.json'), join(project, '.mcp.json'));
    const got = await run('mcp', 'install', 'claude-code', '--', 'node', 'server.js');
    expect(got.code).toBe(1);
    expect(got.stderr).toContain('symbolic link');
    expect(got.stderr).toContain(join(elsewhere, 'shared.json'));
    expect(readFileSync(join(elsewhere, 'shared.json'), 'utf8')).toBe('{"mcpServers":{}}\n');
    // A linked folder on the way is refused as well.
    const folder = tree({ 'mcp.json': '{}\n' });
    symlinkSync(folder, join(project, '.vscode'));
    const linked = await run('mcp', 'install', 'vscode', '--', 'node', 'server.js');
    expect(linked.code).toBe(1);
    expect(readFileSync(join(folder, 'mcp.json'), 'utf8')).toBe('{}\n');
  });

  it('unwraps an entry changed since install from its own words, keeping the change', async () => {
    const { project, run } = setup();
    const file = join(project, '.mcp.json');
    expect(
      (await run('mcp', 'install', 'claude-code', '--name', 'db', '--', 'db-server', '--ro')).code,
    ).toBe(0);
    const config = read(file);
    config.mcpServers.db.env = { TOKEN: 't' };
    writeFileSync(file, JSON.stringify(config, null, 2));
    const got = await run('mcp', 'uninstall', 'claude-code', '--name', 'db');
    expect(got.code).toBe(0);
    expect(got.stdout).toContain('had changed');
    expect(read(file).mcpServers.db).toEqual({
      command: 'db-server',
      args: ['--ro'],
      env: { TOKEN: 't' },
    });
    const none = await run('mcp', 'uninstall', 'claude-code', '--name', 'db');
    expect(none.code).toBe(1);
    expect(none.stderr).toContain('does not run through hermes mcp proxy');
  });
});
