import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describeError } from '../../chain/errors.js';
import {
  type ClientTransport,
  connectProxy,
  type McpProxyOptions,
  type ProxyConnection,
  proxyRuntimes,
} from './connection.js';
import { servedNames } from './served-names.js';

export interface McpHttpProxyOptions extends McpProxyOptions {
  /** The port to listen on (0: one the system picks). */
  port: number;
  /** The address to bind: loopback unless the user says otherwise (`--host`). */
  host: string;
  /** Told the endpoint's URL once the proxy listens. */
  listening?(url: string): void;
  /** Resolves when the proxy is to stop (the process is told to end). */
  stop: Promise<void>;
}

/** Where the proxy serves MCP, as the SDK's examples and most clients' configs expect it. */
const ENDPOINT = '/mcp';

/**
 * `hermes mcp proxy --http PORT`: the proxy over Streamable HTTP (the SDK's server transport).
 * Each MCP session (a client's `initialize`, then every request with the `Mcp-Session-Id` it was
 * given) is one connection of its own (connection.ts): its own turn and its own connection to
 * the wrapped server; the extensions are loaded once for all of them. A session ends when its
 * client ends it (an HTTP DELETE) or the proxy stops.
 *
 * DNS rebinding: a web page the person opens may make their browser send requests to a loopback
 * port under a name the page controls. Every request is answered only when its Host names this
 * proxy, and its Origin, when it has one, is this proxy's (the SDK transport's own check,
 * served-names.ts says which names).
 */
export async function serveMcpProxyHttp(options: McpHttpProxyOptions): Promise<void> {
  const { sdk, logger } = options;
  const { runtimes, stop } = proxyRuntimes(options);
  const sessions = new Map<string, { transport: ClientTransport; connection: ProxyConnection }>();
  const open = new Set<ProxyConnection>();
  let allowed: { allowedHosts: string[]; allowedOrigins: string[] } | undefined;

  const handle = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const path = new URL(request.url ?? '/', 'http://proxy').pathname;
    if (path !== ENDPOINT) {
      refuse(response, 404, `this MCP proxy serves ${ENDPOINT} only`);
      return;
    }
    const id = request.headers['mcp-session-id'];
    if (id !== undefined) {
      const known = typeof id === 'string' ? sessions.get(id) : undefined;
      if (known === undefined) {
        // 404 tells the client to start a new session (the transport's spec).
        refuse(response, 404, 'Session not found', -32001);
        return;
      }
      await (
        known.transport as InstanceType<typeof sdk.StreamableHTTPServerTransport>
      ).handleRequest(request, response);
      return;
    }
    // No session yet: this is a client's initialize, or is refused by the transport as it says.
    const transport = new sdk.StreamableHTTPServerTransport({
      sessionIdGenerator: randomUUID,
      onsessioninitialized: (session) => {
        sessions.set(session, { transport, connection });
      },
      enableDnsRebindingProtection: true,
      ...allowed,
    });
    const connection = await connectProxy(options, runtimes, transport);
    open.add(connection);
    connection.ended.then(() => {
      open.delete(connection);
      if (transport.sessionId !== undefined) sessions.delete(transport.sessionId);
    });
    await transport.handleRequest(request, response);
    if (transport.sessionId === undefined) await connection.close();
  };

  const http = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      logger.error(`mcp proxy: a request failed: ${describeError(error)}`);
      if (!response.headersSent)
        refuse(response, 500, 'the proxy failed to answer; its log says why');
      else response.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(options.port, options.host, () => resolve());
  });
  const { port } = http.address() as AddressInfo;
  allowed = servedNames(options.host, port);
  const host = options.host.includes(':') ? `[${options.host}]` : options.host;
  options.listening?.(`http://${host}:${port}${ENDPOINT}`);

  await options.stop;
  http.close();
  await Promise.all([...open].map((connection) => connection.close()));
  http.closeAllConnections();
  await stop();
}

/** An HTTP refusal with a JSON-RPC error body, as the SDK's transport answers its own. */
function refuse(response: ServerResponse, status: number, message: string, code = -32000): void {
  response
    .writeHead(status, { 'content-type': 'application/json' })
    .end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
}
