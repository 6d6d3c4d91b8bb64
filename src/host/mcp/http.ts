import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describeError } from '../../chain/errors.js';
import {
  connectProxy,
  type McpProxyOptions,
  type ProxyConnection,
  proxyRuntimes,
} from './connection.js';
import type { McpSdk } from './sdk.js';
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
  /** How long a session may have no request open before it is taken as gone, and ended. */
  idleMs: number;
}

/** One MCP session over HTTP: its transport, its connection, and whether its client is there. */
interface HttpSession {
  transport: InstanceType<McpSdk['StreamableHTTPServerTransport']>;
  connection: ProxyConnection;
  /** Its HTTP requests open now (an answer being sent, an event stream held). */
  requests: number;
  /** Set while none is open: ends the session when it fires. */
  idle?: ReturnType<typeof setTimeout>;
}

/** Where the proxy serves MCP, as the SDK's examples and most clients' configs expect it. */
const ENDPOINT = '/mcp';

/**
 * `hermes mcp proxy --http PORT`: the proxy over Streamable HTTP (the SDK's server transport).
 * Each MCP session (a client's `initialize`, then every request with the `Mcp-Session-Id` it was
 * given) is one connection of its own (connection.ts): its own turn and its own connection to
 * the wrapped server; the extensions are loaded once for all of them. A session ends when its
 * client ends it (an HTTP DELETE), when it has had no request open for `idleMs`, or when the
 * proxy stops.
 *
 * DNS rebinding: a web page the person opens may make their browser send requests to a loopback
 * port under a name the page controls. Every request is answered only when its Host names this
 * proxy, and its Origin, when it has one, is this proxy's (the SDK transport's own check,
 * served-names.ts says which names).
 */
export async function serveMcpProxyHttp(options: McpHttpProxyOptions): Promise<void> {
  const { sdk, logger } = options;
  const { runtimes, stop } = proxyRuntimes(options);
  const sessions = new Map<string, HttpSession>();
  const open = new Set<HttpSession>();
  let allowed: { allowedHosts: string[]; allowedOrigins: string[] } | undefined;

  /**
   * `request` answered in `session`. While none of its requests is open (a client that holds
   * its event stream keeps one open all along) for `idleMs`, the client is taken to have gone
   * without ending its session (the SDK's client does not end it when it closes), and the
   * session is ended, its wrapped server with it.
   */
  const served = async (
    session: HttpSession,
    request: IncomingMessage,
    response: ServerResponse,
  ) => {
    session.requests += 1;
    clearTimeout(session.idle);
    response.once('close', () => {
      session.requests -= 1;
      if (session.requests > 0 || !open.has(session)) return;
      session.idle = setTimeout(() => {
        logger.info(
          `mcp proxy: an MCP session sent nothing for ${options.idleMs / 1000} s and is ended`,
        );
        session.connection.close().catch(() => undefined);
      }, options.idleMs);
    });
    await session.transport.handleRequest(request, response);
  };

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
      await served(known, request, response);
      return;
    }
    // No session yet: this is a client's initialize, or is refused by the transport as it says.
    const transport = new sdk.StreamableHTTPServerTransport({
      sessionIdGenerator: randomUUID,
      onsessioninitialized: (id) => {
        sessions.set(id, session);
      },
      enableDnsRebindingProtection: true,
      ...allowed,
    });
    const session: HttpSession = {
      transport,
      connection: await connectProxy(options, runtimes, transport),
      requests: 0,
    };
    open.add(session);
    session.connection.ended.then(() => {
      open.delete(session);
      clearTimeout(session.idle);
      if (transport.sessionId !== undefined) sessions.delete(transport.sessionId);
    });
    await served(session, request, response);
    if (transport.sessionId === undefined) await session.connection.close();
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
  await Promise.all([...open].map((session) => session.connection.close()));
  http.closeAllConnections();
  await stop();
}

/** An HTTP refusal with a JSON-RPC error body, as the SDK's transport answers its own. */
function refuse(response: ServerResponse, status: number, message: string, code = -32000): void {
  response
    .writeHead(status, { 'content-type': 'application/json' })
    .end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
}
