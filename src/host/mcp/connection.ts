import { randomUUID } from 'node:crypto';
import { describeError } from '../../chain/errors.js';
import type { Logger } from '../../log/logger.js';
import { packageVersion } from '../../package-root.js';
import { loadRuntime } from '../../runtime/load-runtime.js';
import type { ProcessCrash } from '../process-crash.js';
import { ServedRuntimes } from '../served-runtimes.js';
import { elicitationApprover, offersFormElicitation } from './ask.js';
import {
  type RelayedRequest,
  type RequestExtra,
  relay,
  relayFromWrapped,
  relayToWrapped,
  rpcError,
} from './relay.js';
import type { McpSdk } from './sdk.js';
import { ProxySession } from './session.js';
import { judgedToolCall, type ToolResult } from './tool-calls.js';
import { ToolList } from './tool-list.js';
import { closeWrapped, type WrappedServer, wrappedLabel, wrappedTransport } from './wrapped.js';

/** What every proxy needs, whichever transport its clients use. */
export interface McpProxyOptions {
  sdk: McpSdk;
  /** The wrapped server's name: tool calls' `mcpServer`, and in every message about it. */
  name: string;
  /** The server the proxy wraps: a command run as the client would run it, or a remote URL. */
  wrapped: WrappedServer;
  /** The project whose extensions judge the calls (`--cwd`). */
  cwd: string;
  home?: string;
  logger: Logger;
  /** As the bridge's (src/host/bridge/server.ts): an extension's crash of the process. */
  crashes?(listener: (crash: ProcessCrash) => void): () => void;
}

type Server = InstanceType<McpSdk['Server']>;
type Client = InstanceType<McpSdk['Client']>;
/** The transport of one client's connection to the proxy. */
export type ClientTransport = Parameters<Server['connect']>[0];

/**
 * The extensions of the proxy's project, loaded once for all its connections (one warm runtime,
 * as the bridge keeps one for all its sessions), loaded afresh after an extension crashes the
 * process. `stop` closes them and stops listening for crashes.
 */
export function proxyRuntimes(options: McpProxyOptions): {
  runtimes: ServedRuntimes;
  stop: () => Promise<void>;
} {
  let told: ((crash: ProcessCrash) => void) | undefined;
  const stopListening = options.crashes?.((crash) => told?.(crash));
  const runtimes = new ServedRuntimes(
    () => loadRuntime({ cwd: options.cwd, home: options.home, logger: options.logger }),
    options.logger,
    'mcp proxy',
  );
  told = (crash) => runtimes.crashed(crash);
  return {
    runtimes,
    stop: async () => {
      await runtimes.close();
      stopListening?.();
    },
  };
}

/** One client's connection to the proxy, once connected. */
export interface ProxyConnection {
  /** Settles once the client's connection has closed and everything of it is ended. */
  ended: Promise<void>;
  /** Closes the client's connection from the proxy's side. */
  close: () => Promise<void>;
}

/**
 * One client's connection, on `transport`: its own session (one turn, session.ts) and its own
 * connection to the wrapped server, started at the client's `initialize` (declaring to it the
 * client's own capabilities and identity, and answering with the wrapped server's). Between the
 * two: tool lists and tool calls through the extensions (tool-list.ts, tool-calls.ts), everything
 * else relayed unchanged both ways (relay.ts). When the client's connection closes, the wrapped
 * server's is closed and the session's turn ended.
 *
 * Why a wrapped connection per client and not one shared: what the wrapped server sends on its
 * own (sampling, elicitation, roots requests, log and list-change notifications) belongs to one
 * client's session and must reach that client; and a server keeps per-connection state of its
 * own (subscriptions, logging level, the client's roots) that another client must not change.
 */
export async function connectProxy(
  options: McpProxyOptions,
  runtimes: ServedRuntimes,
  transport: ClientTransport,
): Promise<ProxyConnection> {
  const { sdk, name, logger } = options;
  const { ErrorCode } = sdk.types;
  const session = new ProxySession(runtimes, `mcp-${randomUUID()}`);
  const toolList = new ToolList(session);
  const label = wrappedLabel(options.wrapped);

  const server = new (relayServer(sdk))(
    { name: 'hermes-mcp-proxy', version: packageVersion() },
    { capabilities: {} },
  );
  let wrapped: { client: Client; transport: ReturnType<typeof wrappedTransport> } | undefined;
  let exited = false;
  /** The proxy is closing the wrapped connection itself (the client has gone). */
  let closing = false;
  let clientCapabilities: Parameters<typeof offersFormElicitation>[0];

  const gone = () =>
    rpcError(
      ErrorCode.ConnectionClosed,
      `the wrapped MCP server "${name}" (${label}) has exited; its messages on this proxy's stderr say why. Restart the proxy (reconnect the server in the client) to start it again`,
    );
  const wrappedServer = (): Client => {
    if (exited) throw gone();
    if (wrapped === undefined) {
      throw rpcError(ErrorCode.InvalidRequest, 'the client has not sent initialize yet');
    }
    return wrapped.client;
  };
  const forward = async (request: RelayedRequest, extra: RequestExtra) => {
    try {
      return await relay(sdk, wrappedServer(), request, extra);
    } catch (error) {
      throw exited ? gone() : error;
    }
  };

  server.setRequestHandler(sdk.types.InitializeRequestSchema, async (request) => {
    if (wrapped !== undefined) {
      throw rpcError(ErrorCode.InvalidRequest, 'initialize was sent already on this connection');
    }
    const { capabilities, clientInfo, protocolVersion } = request.params;
    clientCapabilities = capabilities;
    const client = new sdk.Client(clientInfo, { capabilities });
    relayFromWrapped(sdk, client, server);
    client.onclose = () => {
      exited = true;
      if (!closing) logger.error(`mcp proxy: the wrapped server "${name}" (${label}) has exited`);
    };
    const toWrapped = wrappedTransport(sdk, options.wrapped);
    try {
      await client.connect(toWrapped);
    } catch (error) {
      throw rpcError(
        ErrorCode.InternalError,
        `cannot ${'url' in options.wrapped ? 'reach' : 'start'} the wrapped MCP server "${name}" (${label}): ${describeError(error)}`,
      );
    }
    wrapped = { client, transport: toWrapped };
    return {
      protocolVersion: sdk.types.SUPPORTED_PROTOCOL_VERSIONS.includes(protocolVersion)
        ? protocolVersion
        : sdk.types.LATEST_PROTOCOL_VERSION,
      capabilities: client.getServerCapabilities() ?? {},
      serverInfo: client.getServerVersion() ?? { name, version: 'unknown' },
      ...(client.getInstructions() === undefined ? {} : { instructions: client.getInstructions() }),
    };
  });

  const route = {
    session,
    server: name,
    cwd: options.cwd,
    isToolResult: (value: unknown): value is ToolResult =>
      sdk.types.CallToolResultSchema.safeParse(value).success,
  };
  relayToWrapped(
    server,
    forward,
    async (notification) => {
      await wrappedServer().notification(notification as Parameters<Client['notification']>[0]);
    },
    (request, extra) => {
      if (request.method === 'tools/list') {
        return forward(request, extra).then((listed) => toolList.judged(request, listed));
      }
      if (request.method !== 'tools/call') return undefined;
      return judgedToolCall(
        {
          ...route,
          approver: () =>
            offersFormElicitation(clientCapabilities)
              ? elicitationApprover(sdk, extra.sendRequest, name)
              : undefined,
          forward: async (args) =>
            (await forward(
              { method: 'tools/call', params: { ...request.params, arguments: args } },
              extra,
            )) as ToolResult,
        },
        request,
        String(extra.requestId),
      );
    },
  );

  const closed = new Promise<void>((resolve) => {
    server.onclose = resolve;
  });
  await server.connect(transport);
  const ended = closed.then(async () => {
    closing = true;
    if (wrapped !== undefined) await closeWrapped(wrapped.client, wrapped.transport);
    await session.end();
  });
  return {
    ended,
    close: async () => {
      await server.close().catch(() => undefined);
      await ended;
    },
  };
}

/**
 * The SDK's Server as a relay: it sends on the wrapped server's notifications (list changes,
 * log messages, resource updates) without checking them against capabilities of its own. The
 * capabilities it answers `initialize` with are the wrapped server's, whose own SDK checked each
 * notification against them before sending it.
 */
function relayServer(sdk: McpSdk) {
  return class RelayServer extends sdk.Server {
    protected override assertNotificationCapability(): void {}
  };
}
