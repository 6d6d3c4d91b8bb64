import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { verifyAuditChain } from 'hermes-extensions';
import { describe, expect, it } from 'vitest';
import { jsonLines, tree, tsExtension } from '../support/fixtures.js';
import { connectMcp, filesystemServer, proxied, smallServer } from '../support/mcp.js';
import { bin, built } from '../support/run-bin.js';
import { hermes } from './hermes-cli.js';

/**
 * `hermes mcp proxy` as an MCP client meets it: the SDK's own client over stdio, the proxy the
 * built command line, the wrapped server a real one (the reference filesystem server from npm,
 * or a small one written with the SDK), the extensions the shipped ones named in $HERMES_HOME's
 * config as a user names them.
 */

/** A $HERMES_HOME whose config runs `extensions` (the shipped ones by package name). */
function homeWith(...extensions: string[]): string {
  const paths = extensions.map((name) => `    - ${name}\n`).join('');
  return tree({ 'config.yaml': paths === '' ? '' : `extensions:\n  paths:\n${paths}` });
}

const GUARDS = ['hermes-extensions/workflow-guard', 'hermes-extensions/secrets-guard'];

function textOf(result: Record<string, unknown>): string {
  return (result.content as Array<{ type: string; text?: string }>)
    .map((part) => part.text ?? '')
    .join('\n');
}

describe.runIf(built)('hermes mcp proxy in front of the filesystem server', () => {
  it('answers a read', async () => {
    const project = tree({ 'src/a.ts': 'export const a = 1;\n' });
    const { client } = await proxied(homeWith(...GUARDS), project, filesystemServer(project));
    const result = await client.callTool({
      name: 'read_text_file',
      arguments: { path: join(project, 'src/a.ts') },
    });
    expect(result.isError).not.toBe(true);
    expect(textOf(result)).toBe('export const a = 1;\n');
  });

  it("refuses a write before a plan with workflow-guard's reason, and the server never writes", async () => {
    const project = tree({ 'src/a.ts': 'export const a = 1;\n' });
    const { client } = await proxied(homeWith(...GUARDS), project, filesystemServer(project));
    for (const call of [
      { name: 'write_file', arguments: { path: join(project, 'src/a.ts'), content: 'changed' } },
      { name: 'write_file', arguments: { path: join(project, 'src/new.ts'), content: 'new' } },
      {
        name: 'edit_file',
        arguments: {
          path: join(project, 'src/a.ts'),
          edits: [{ oldText: 'a = 1', newText: 'a = 2' }],
        },
      },
      { name: 'create_directory', arguments: { path: join(project, 'src/made') } },
      {
        name: 'move_file',
        arguments: { source: join(project, 'src/a.ts'), destination: join(project, 'src/b.ts') },
      },
    ]) {
      const result = await client.callTool(call);
      expect(result.isError, call.name).toBe(true);
      expect(textOf(result), call.name).toContain('Blocked by workflow-guard');
      expect(textOf(result), call.name).toContain('no plan exists at plans/active/plan.md');
    }
    expect(readFileSync(join(project, 'src/a.ts'), 'utf8')).toBe('export const a = 1;\n');
    for (const made of ['src/new.ts', 'src/made', 'src/b.ts']) {
      expect(existsSync(join(project, made)), made).toBe(false);
    }
  });

  it('keeps secret files and protected ground out of reach, with a plan too', async () => {
    const project = tree({
      'plans/active/plan.md': '# Plan\n',
      '.env': 'API_TOKEN=abcdefghijklmnop\n',
      'src/a.ts': '',
    });
    const { client } = await proxied(homeWith(...GUARDS), project, filesystemServer(project));
    for (const call of [
      { name: 'read_text_file', arguments: { path: join(project, '.env') } },
      {
        name: 'read_multiple_files',
        arguments: { paths: [join(project, 'src/a.ts'), join(project, '.env')] },
      },
    ]) {
      const result = await client.callTool(call);
      expect(result.isError, call.name).toBe(true);
      expect(textOf(result), call.name).toContain('secrets-guard');
      expect(JSON.stringify(result), call.name).not.toContain('abcdefghijklmnop');
    }
    const config = await client.callTool({
      name: 'write_file',
      arguments: { path: join(project, '.hermes/config.yaml'), content: 'extensions: {}\n' },
    });
    expect(config.isError).toBe(true);
    expect(textOf(config)).toContain('protected');
    expect(existsSync(join(project, '.hermes/config.yaml'))).toBe(false);
  });

  it("tells observers, as every host does: the audit trail has the refusal and the read's outcome", async () => {
    const project = tree({ 'src/a.ts': 'export const a = 1;\n' });
    const home = homeWith(...GUARDS, 'hermes-extensions/audit-log');
    const { client } = await proxied(home, project, filesystemServer(project));
    await client.callTool({
      name: 'write_file',
      arguments: { path: join(project, 'src/b.ts'), content: 'x' },
    });
    await client.callTool({
      name: 'read_text_file',
      arguments: { path: join(project, 'src/a.ts') },
    });
    // The client goes: the proxy closes its extensions, and audit-log writes what it holds.
    await client.close();
    const trail = join(project, '.hermes/audit/audit.jsonl');
    await expect.poll(() => jsonLines(trail).length).toBeGreaterThanOrEqual(3);
    const lines = jsonLines(trail);
    expect(lines).toContainEqual(
      expect.objectContaining({ event: 'hook_decision', tool_name: 'write_file', platform: 'mcp' }),
    );
    expect(lines).toContainEqual(
      expect.objectContaining({
        event: 'post_tool_call',
        tool_name: 'write_file',
        status: 'blocked',
      }),
    );
    expect(lines).toContainEqual(
      expect.objectContaining({
        event: 'post_tool_call',
        tool_name: 'read_text_file',
        status: 'ok',
      }),
    );
    // The refusal once, and one chain (docs/teams.md, Evidence).
    const refusals = lines.filter(
      (line) => line.event === 'hook_decision' && line.tool_name === 'write_file',
    );
    expect(refusals).toHaveLength(1);
    expect(verifyAuditChain([{ path: trail, bytes: readFileSync(trail) }])).toMatchObject({
      status: 'ok',
    });
  });

  it('lets the write through once the plan exists', async () => {
    const project = tree({
      'plans/active/plan.md': '# Plan\n\n- add src/new.ts\n',
      'src/a.ts': '',
    });
    const { client } = await proxied(homeWith(...GUARDS), project, filesystemServer(project));
    const result = await client.callTool({
      name: 'write_file',
      arguments: { path: join(project, 'src/new.ts'), content: 'export {};\n' },
    });
    expect(textOf(result)).not.toContain('Blocked');
    expect(readFileSync(join(project, 'src/new.ts'), 'utf8')).toBe('export {};\n');
  });

  it('redacts a secret in a result (secrets-guard), in the text and the structured content', async () => {
    const key = 'AKIAABCDEFGHIJKLMNOP';
    const project = tree({ 'src/config.ts': `export const key = "${key}";\n` });
    const { client } = await proxied(homeWith(...GUARDS), project, filesystemServer(project));
    const result = await client.callTool({
      name: 'read_text_file',
      arguments: { path: join(project, 'src/config.ts') },
    });
    expect(JSON.stringify(result)).not.toContain(key);
    expect(textOf(result)).toContain('[redacted AWS access key]');
  });

  it('passes the tool list through unchanged when no extension restricts it', async () => {
    const project = tree({ 'src/a.ts': '' });
    const direct = await connectMcp(
      filesystemServer(project)[0] as string,
      filesystemServer(project).slice(1),
    );
    const { client } = await proxied(
      homeWith('hermes-extensions/secrets-guard'),
      project,
      filesystemServer(project),
    );
    expect(await client.listTools()).toEqual(await direct.client.listTools());
    expect(client.getServerVersion()).toEqual(direct.client.getServerVersion());
    expect(client.getServerCapabilities()).toEqual(direct.client.getServerCapabilities());
  });

  it("offers the filesystem server's readers and writers before a plan (workflow-guard knows them)", async () => {
    const project = tree({ 'src/a.ts': '' });
    const { client } = await proxied(homeWith(...GUARDS), project, filesystemServer(project));
    const names = (await client.listTools()).tools.map((tool) => tool.name);
    for (const name of [
      'read_text_file',
      'read_multiple_files',
      'directory_tree',
      'get_file_info',
      'list_directory_with_sizes',
      'write_file',
      'edit_file',
    ]) {
      expect(names, name).toContain(name);
    }
  });
});

describe.runIf(built)('hermes mcp proxy in front of any MCP server', () => {
  it('passes resources and prompts through unchanged', async () => {
    const folder = tree();
    const server = smallServer(folder);
    const direct = await connectMcp(server[0] as string, server.slice(1));
    const { client } = await proxied(homeWith(...GUARDS), folder, server);
    expect(await client.listResources()).toEqual(await direct.client.listResources());
    const read = await client.readResource({ uri: 'memo://greeting' });
    expect(read).toEqual(await direct.client.readResource({ uri: 'memo://greeting' }));
    expect(read.contents[0]).toMatchObject({ text: 'hello from the small server' });
    expect(await client.listPrompts()).toEqual(await direct.client.listPrompts());
    const prompt = { name: 'review', arguments: { file: 'src/a.ts' } };
    expect(await client.getPrompt(prompt)).toEqual(await direct.client.getPrompt(prompt));
  });

  it('gives the client a clear error when the wrapped server crashes, and for every later call', async () => {
    const folder = tree();
    const { client } = await proxied(homeWith(), folder, smallServer(folder));
    await expect(client.callTool({ name: 'crash', arguments: {} })).rejects.toThrow(
      /the wrapped MCP server "small-server" \(.*small-server\.mjs\) has exited/,
    );
    await expect(client.callTool({ name: 'echo', arguments: { text: 'hi' } })).rejects.toThrow(
      /has exited/,
    );
    await expect(client.listResources()).rejects.toThrow(/has exited/);
    // Said once, as the proxy said it: the SDK's prefix is not doubled.
    await expect(client.listResources()).rejects.toThrow(
      /^MCP error -32000: the wrapped MCP server/,
    );
  });

  it('gives the client a clear error when the wrapped server cannot start', async () => {
    const folder = tree();
    const missing = join(folder, 'no-such-server');
    await expect(proxied(homeWith(), folder, [missing, '--flag'])).rejects.toThrow(
      `cannot start the wrapped MCP server "no-such-server" (${missing} --flag)`,
    );
  });

  it('names the server with --name in what it says', async () => {
    const folder = tree();
    const server = smallServer(folder);
    const { client } = await connectMcp(
      process.execPath,
      [bin, 'mcp', 'proxy', '--name', 'small', '--cwd', folder, '--', ...server],
      { HERMES_HOME: homeWith() },
    );
    await expect(client.callTool({ name: 'crash', arguments: {} })).rejects.toThrow(
      /the wrapped MCP server "small"/,
    );
  });
});

describe.runIf(built)('hermes mcp proxy when the extensions cannot load', () => {
  it.each([
    ['a config that cannot be read', 'extensions: [unclosed\n', 'cannot load the extensions'],
    [
      'an enabled extension that is missing',
      'extensions:\n  paths:\n    - ./no-such-extension.ts\n',
      'Tool calls are refused while an enabled extension is not running',
    ],
  ])('refuses every call, a read too, with %s', async (_, config, reason) => {
    const project = tree({ 'src/a.ts': 'export const a = 1;\n' });
    const { client } = await proxied(
      tree({ 'config.yaml': config }),
      project,
      filesystemServer(project),
    );
    const read = await client.callTool({
      name: 'read_text_file',
      arguments: { path: join(project, 'src/a.ts') },
    });
    expect(read.isError).toBe(true);
    expect(textOf(read)).toContain(reason);
    expect(textOf(read)).not.toContain('export const a');
    const written = await client.callTool({
      name: 'write_file',
      arguments: { path: join(project, 'src/a.ts'), content: 'changed' },
    });
    expect(written.isError).toBe(true);
    expect(readFileSync(join(project, 'src/a.ts'), 'utf8')).toBe('export const a = 1;\n');
  });
});

/**
 * A user's guard on the small server's tools: it asks before `echo` says "ask", rewrites "rude"
 * to "polite", blocks "who" naming the server the call went to, and hides `crash` from the list.
 */
function homeWithEchoGuard(): string {
  return tree({
    'config.yaml': '',
    'extensions/echo-guard.ts': tsExtension(
      'echo-guard',
      `hermes.on('intercept_tool_call', (e) => {
        // Printed on stdout, it would break the client's stream: the proxy sends it to stderr.
        console.log('echo-guard judges', e.toolName);
        if (e.toolArgs.text === 'ask') return ask('saying ask needs a person');
        if (e.toolArgs.text === 'rude') return rewrite({ text: 'polite' });
        if (e.toolArgs.text === 'who') return block('the call went to ' + e.mcpServer);
        return pass();
      }, { tools: 'echo' });
      hermes.on('before_llm_call', () => restrictTools((tool) => tool !== 'crash', 'no crashing'));`,
      "import { ask, rewrite, restrictTools } from 'hermes-extensions';",
    ),
  });
}

function smallProxied(home: string, capabilities?: Parameters<typeof proxied>[3]) {
  const folder = tree();
  return connectMcp(
    process.execPath,
    [bin, 'mcp', 'proxy', '--name', 'small', '--cwd', folder, '--', ...smallServer(folder)],
    { HERMES_HOME: home },
    capabilities,
  );
}

describe.runIf(built)("hermes mcp proxy applies each of a guard's decisions", () => {
  it('forwards the arguments a rewrite makes, and names the server in the payload', async () => {
    const { client, stderr } = await smallProxied(homeWithEchoGuard());
    const rewritten = await client.callTool({ name: 'echo', arguments: { text: 'rude' } });
    expect(textOf(rewritten)).toBe('polite');
    const who = await client.callTool({ name: 'echo', arguments: { text: 'who' } });
    expect(who.isError).toBe(true);
    expect(textOf(who)).toContain('the call went to small');
    // What the guard printed went to the server's log, not into the protocol's stream.
    expect(stderr()).toContain('echo-guard judges echo');
  });

  it('hides a tool restrictTools takes away, and refuses a call to it', async () => {
    const { client } = await smallProxied(homeWithEchoGuard());
    const names = (await client.listTools()).tools.map((tool) => tool.name);
    expect(names).toEqual(['echo']);
    const crash = await client.callTool({ name: 'crash', arguments: {} });
    expect(crash.isError).toBe(true);
    expect(textOf(crash)).toContain(
      'extension "echo-guard" took it away for this request (no crashing)',
    );
    // The server never saw it: it still answers.
    expect(textOf(await client.callTool({ name: 'echo', arguments: { text: 'hi' } }))).toBe('hi');
  });

  it('puts an ask to the person through the client’s elicitation: yes runs the call, no refuses it', async () => {
    const { client } = await smallProxied(homeWithEchoGuard(), {
      capabilities: { elicitation: {} },
    });
    const asked: string[] = [];
    let answer = true;
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      asked.push(String(request.params.message));
      return { action: 'accept', content: { approve: answer } };
    });
    const approved = await client.callTool({ name: 'echo', arguments: { text: 'ask' } });
    expect(textOf(approved)).toBe('ask');
    expect(asked[0]).toContain('echo-guard asks before small');
    expect(asked[0]).toContain('saying ask needs a person');
    answer = false;
    const declined = await client.callTool({ name: 'echo', arguments: { text: 'ask' } });
    expect(declined.isError).toBe(true);
    expect(textOf(declined)).toContain('needs approval: saying ask needs a person');
  });

  it('refuses an ask, saying why, when the client offers no elicitation', async () => {
    const { client } = await smallProxied(homeWithEchoGuard());
    const result = await client.callTool({ name: 'echo', arguments: { text: 'ask' } });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain('needs approval: saying ask needs a person');
    expect(textOf(result)).toContain('this MCP client offers no elicitation');
  });
});

describe.runIf(built)('hermes mcp proxy run by the agent in its shell', () => {
  it('is judged as the command it starts would be: no way around protected ground', async () => {
    const project = tree({ 'src/a.ts': '' });
    const run = await hermes(
      homeWith(...GUARDS),
      'extensions',
      'test',
      'intercept_tool_call',
      '--cwd',
      project,
      '--json',
      '--input',
      JSON.stringify({
        toolName: 'bash',
        toolArgs: { command: 'hermes mcp proxy -- sh -c "echo x > .hermes/config.yaml"' },
      }),
    );
    const { outcome } = JSON.parse(run.stdout) as {
      outcome: { blocked: boolean; blockedBy?: string; message?: string };
    };
    expect(outcome.blocked).toBe(true);
    expect(outcome.blockedBy).toBe('hermes');
    expect(outcome.message).toContain('.hermes/config.yaml, which is protected ground');
  });
});
