import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { tree, tsExtension } from '../support/fixtures.js';
import { connectMcp, filesystemServer, smallServer } from '../support/mcp.js';
import { connectHttp, httpMcpServer, proxyOverHttp } from '../support/mcp-http.js';
import { bin, built } from '../support/run-bin.js';
import { hermes, hermesWith } from './hermes-cli.js';

/**
 * `hermes mcp proxy` over Streamable HTTP, both ways: serving the client over HTTP (`--http`) in
 * front of a server it starts on stdio, and wrapping a remote server over HTTP (`--url`). The
 * clients are the SDK's own, the proxy the built command line, the servers real ones (the
 * reference filesystem server, and one written with the SDK that serves HTTP:
 * test/support/mcp-http-server.mjs).
 */

const GUARDS = ['hermes-extensions/workflow-guard', 'hermes-extensions/secrets-guard'];

function homeWith(...extensions: string[]): string {
  const paths = extensions.map((name) => `    - ${name}\n`).join('');
  return tree({ 'config.yaml': paths === '' ? '' : `extensions:\n  paths:\n${paths}` });
}

function textOf(result: Record<string, unknown>): string {
  return (result.content as Array<{ type: string; text?: string }>)
    .map((part) => part.text ?? '')
    .join('\n');
}

const KEY = 'AKIAABCDEFGHIJKLMNOP';

/** A project with a file to read, one holding a secret, and no plan. */
function project(): string {
  return tree({
    'src/a.ts': 'export const a = 1;\n',
    'src/config.ts': `export const key = "${KEY}";\n`,
  });
}

/** Reads, a write before a plan, a secret: what every wrapping of the filesystem tools must do. */
async function guardsTheFiles(
  client: Awaited<ReturnType<typeof connectHttp>>,
  folder: string,
): Promise<void> {
  const read = await client.callTool({
    name: 'read_text_file',
    arguments: { path: join(folder, 'src/a.ts') },
  });
  expect(read.isError).not.toBe(true);
  expect(textOf(read)).toBe('export const a = 1;\n');

  const written = await client.callTool({
    name: 'write_file',
    arguments: { path: join(folder, 'src/a.ts'), content: 'changed' },
  });
  expect(written.isError).toBe(true);
  expect(textOf(written)).toContain('Blocked by workflow-guard');
  expect(textOf(written)).toContain('no plan exists at plans/active/plan.md');
  expect(readFileSync(join(folder, 'src/a.ts'), 'utf8')).toBe('export const a = 1;\n');

  const secret = await client.callTool({
    name: 'read_text_file',
    arguments: { path: join(folder, 'src/config.ts') },
  });
  expect(JSON.stringify(secret)).not.toContain(KEY);
  expect(textOf(secret)).toContain('[redacted AWS access key]');
}

/** An extension that counts the `echo` calls of its turn, and says the count in the echo. */
function homeCountingEchoes(): string {
  return tree({
    'config.yaml': '',
    'extensions/counter.ts': tsExtension(
      'counter',
      `const counted = hermes.turnState(() => ({ calls: 0 }));
      hermes.on('intercept_tool_call', (e) => {
        const state = counted(e);
        state.calls += 1;
        return rewrite({ text: e.toolArgs.text + ' #' + state.calls });
      }, { tools: 'echo' });`,
      "import { rewrite } from 'hermes-extensions';",
    ),
  });
}

const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 'raw', version: '1.0.0' },
  },
});

/** A POST of `body` to `url` with `headers` (Host and Origin as given), as a browser page could. */
function post(
  url: string,
  headers: Record<string, string>,
  body = INITIALIZE,
): Promise<{ status: number; body: string; session: string | undefined }> {
  return new Promise((resolve, reject) => {
    const sent = request(
      url,
      {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...headers,
        },
      },
      (response) => {
        let text = '';
        response.on('data', (chunk) => {
          text += chunk;
        });
        // An SSE answer stays open for more: the first event is all this needs.
        const done = () =>
          resolve({
            status: response.statusCode ?? 0,
            body: text,
            session: response.headers['mcp-session-id'] as string | undefined,
          });
        response.on('end', done);
        response.on('data', () => {
          if (text.includes('\n\n')) {
            done();
            response.destroy();
          }
        });
      },
    );
    sent.on('error', reject);
    sent.end(body);
  });
}

describe.runIf(built)('hermes mcp proxy --http: the client over Streamable HTTP', () => {
  it('answers a read, refuses a write before a plan, redacts a secret (the filesystem server on stdio)', async () => {
    const folder = project();
    const { url } = await proxyOverHttp(homeWith(...GUARDS), folder, [
      '--',
      ...filesystemServer(folder),
    ]);
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    await guardsTheFiles(await connectHttp(url), folder);
  });

  it('keeps a turn, and its state, per MCP session', async () => {
    const folder = tree();
    const { url } = await proxyOverHttp(homeCountingEchoes(), folder, [
      '--',
      ...smallServer(folder),
    ]);
    const first = await connectHttp(url);
    const second = await connectHttp(url);
    const echo = async (client: typeof first, text: string) =>
      textOf(await client.callTool({ name: 'echo', arguments: { text } }));
    expect(await echo(first, 'a')).toBe('a #1');
    expect(await echo(first, 'b')).toBe('b #2');
    expect(await echo(second, 'c')).toBe('c #1');
    expect(await echo(first, 'd')).toBe('d #3');
    expect(await echo(second, 'e')).toBe('e #2');
  });

  it("puts an ask to the person through the elicitation of the client's session", async () => {
    const folder = tree();
    const home = tree({
      'config.yaml': '',
      'extensions/asker.ts': tsExtension(
        'asker',
        `hermes.on('intercept_tool_call', (e) =>
          e.toolArgs.text === 'ask' ? ask('saying ask needs a person') : pass(), { tools: 'echo' });`,
        "import { ask } from 'hermes-extensions';",
      ),
    });
    const { url } = await proxyOverHttp(home, folder, ['--', ...smallServer(folder)]);
    const client = await connectHttp(url, { capabilities: { elicitation: {} } });
    const asked: string[] = [];
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      asked.push(String(request.params.message));
      return { action: 'accept', content: { approve: true } };
    });
    const result = await client.callTool({ name: 'echo', arguments: { text: 'ask' } });
    expect(textOf(result)).toBe('ask');
    expect(asked).toHaveLength(1);
    expect(asked[0]).toContain('saying ask needs a person');
  });

  it('refuses a request whose Host or Origin is not this proxy (DNS rebinding)', async () => {
    const folder = tree();
    const { url } = await proxyOverHttp(homeWith(), folder, ['--', ...smallServer(folder)]);
    const port = new URL(url).port;
    // The proxy's own names are served: the refusals below are for the names alone.
    const own = await post(url, { host: `localhost:${port}`, origin: `http://localhost:${port}` });
    expect(own.status).toBe(200);
    expect(own.session).toBeDefined();

    const host = await post(url, { host: `attacker.example:${port}` });
    expect(host.status).toBe(403);
    expect(host.body).toContain('Invalid Host header: attacker.example');
    const origin = await post(url, { origin: 'http://attacker.example' });
    expect(origin.status).toBe(403);
    expect(origin.body).toContain('Invalid Origin header: http://attacker.example');
    // Nor in a session already open.
    const inSession = await post(
      url,
      { host: `attacker.example:${port}`, 'mcp-session-id': own.session as string },
      JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
    );
    expect(inSession.status).toBe(403);
  });

  it('ends a session whose client went without ending it, after --session-timeout with no request', async () => {
    const folder = tree();
    const { url, stderr } = await proxyOverHttp(homeWith(), folder, [
      '--session-timeout',
      '1',
      '--',
      ...smallServer(folder),
    ]);
    const client = await connectHttp(url);
    expect(textOf(await client.callTool({ name: 'echo', arguments: { text: 'hi' } }))).toBe('hi');
    const session = (client.transport as { sessionId?: string } | undefined)?.sessionId;
    expect(session).toBeDefined();
    // The SDK's client closes without ending its session (no DELETE).
    await client.close();
    await expect
      .poll(stderr, { timeout: 15_000 })
      .toContain('an MCP session sent nothing for 1 s and is ended');
    const after = await post(
      url,
      { 'mcp-session-id': session as string },
      JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
    );
    expect(after.status).toBe(404);
  });

  it('binds elsewhere than loopback only when told, and warns', async () => {
    const folder = tree();
    const { url, stderr } = await proxyOverHttp(homeWith(), folder, [
      '--host',
      '0.0.0.0',
      '--',
      ...smallServer(folder),
    ]);
    expect(url).toMatch(/^http:\/\/0\.0\.0\.0:\d+\/mcp$/);
    expect(stderr()).toContain('warning');
    expect(stderr()).toContain('other machines');
    const client = await connectHttp(url.replace('0.0.0.0', '127.0.0.1'));
    expect(textOf(await client.callTool({ name: 'echo', arguments: { text: 'hi' } }))).toBe('hi');
  });

  it('refuses --host without --http', async () => {
    const run = await hermes(homeWith(), 'mcp', 'proxy', '--host', '0.0.0.0', '--', 'node');
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--host needs --http');
  });
});

describe.runIf(built)('hermes mcp proxy --url: a remote server over Streamable HTTP', () => {
  it('answers a read, refuses a write before a plan, redacts a secret (stdio client)', async () => {
    const folder = project();
    const server = await httpMcpServer();
    const { client } = await connectMcp(
      process.execPath,
      [bin, 'mcp', 'proxy', '--cwd', folder, '--url', server.url],
      { HERMES_HOME: homeWith(...GUARDS) },
    );
    await guardsTheFiles(client, folder);
    expect(client.getServerVersion()).toEqual({ name: 'http-files', version: '2.0.0' });
  });

  it('serves a remote server over HTTP too (--http with --url)', async () => {
    const folder = project();
    const server = await httpMcpServer();
    const { url } = await proxyOverHttp(homeWith(...GUARDS), folder, ['--url', server.url]);
    await guardsTheFiles(await connectHttp(url), folder);
  });

  it('sends the headers --header-env names, read from the environment', async () => {
    const server = await httpMcpServer();
    const { client } = await connectMcp(
      process.execPath,
      [
        bin,
        'mcp',
        'proxy',
        '--cwd',
        tree(),
        '--url',
        server.url,
        '--header-env',
        'X-Test-Token=MCP_TEST_TOKEN',
      ],
      { HERMES_HOME: homeWith(), MCP_TEST_TOKEN: 'token-1234' },
    );
    const result = await client.callTool({ name: 'header', arguments: { name: 'x-test-token' } });
    expect(textOf(result)).toBe('token-1234');
  });

  it.each([
    [['--url', 'http://mcp.example.com/mcp'], 'neither HTTPS nor on this machine'],
    [['--http', '0', '--url', 'http://10.0.0.8:3000/mcp'], 'neither HTTPS nor on this machine'],
    [['--url', 'not a url'], 'is not a URL'],
    [['--url', 'ftp://mcp.example.com/'], 'is not an http: or https: URL'],
    [['--url', 'https://mcp.example.com/mcp', '--', 'node', 'server.js'], 'either a command'],
    [
      ['--url', 'https://mcp.example.com/mcp', '--header-env', 'X-Token=UNSET_VAR'],
      'UNSET_VAR is not set',
    ],
  ])('refuses %j, saying why', async (args, reason) => {
    const run = await hermesWith({ UNSET_VAR: undefined }, homeWith(), 'mcp', 'proxy', ...args);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(reason);
  });
});
