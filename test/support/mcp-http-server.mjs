// An MCP server over Streamable HTTP, written with the SDK: the tests' and the bench's remote
// server (test/support/mcp-http.ts, bench/mcp.mjs). A session per client, as the SDK's examples
// keep them; the tools name files as the reference filesystem server's do (`read_text_file`,
// `write_file`), so the shipped guards know them, `echo` says its text back and `header` the
// value of one of the request's headers. It listens on
// a free port of 127.0.0.1 and prints its URL on stdout.
import { randomUUID } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';

function mcpServer() {
  const server = new McpServer({ name: 'http-files', version: '2.0.0' });
  server.registerTool(
    'read_text_file',
    { description: 'reads a text file', inputSchema: { path: z.string() } },
    async ({ path }) => ({ content: [{ type: 'text', text: readFileSync(path, 'utf8') }] }),
  );
  server.registerTool(
    'write_file',
    { description: 'writes a file', inputSchema: { path: z.string(), content: z.string() } },
    async ({ path, content }) => {
      writeFileSync(path, content);
      return { content: [{ type: 'text', text: `wrote ${path}` }] };
    },
  );
  server.registerTool(
    'echo',
    { description: 'says it back', inputSchema: { text: z.string() } },
    async ({ text }) => ({ content: [{ type: 'text', text }] }),
  );
  server.registerTool(
    'header',
    { description: 'the value of a header of the request', inputSchema: { name: z.string() } },
    async ({ name }, extra) => ({
      content: [{ type: 'text', text: String(extra.requestInfo?.headers[name] ?? '') }],
    }),
  );
  return server;
}

const sessions = new Map();
const http = createServer(async (request, response) => {
  const id = request.headers['mcp-session-id'];
  let transport = typeof id === 'string' ? sessions.get(id) : undefined;
  if (transport === undefined) {
    if (id !== undefined) {
      response.writeHead(404).end();
      return;
    }
    const created = new StreamableHTTPServerTransport({
      sessionIdGenerator: randomUUID,
      onsessioninitialized: (session) => sessions.set(session, created),
    });
    created.onclose = () => sessions.delete(created.sessionId);
    await mcpServer().connect(created);
    transport = created;
  }
  await transport.handleRequest(request, response);
});
http.listen(0, '127.0.0.1', () => {
  process.stdout.write(`listening on http://127.0.0.1:${http.address().port}/mcp\n`);
});
