import { randomUUID } from 'node:crypto';
import type { Readable, Writable } from 'node:stream';
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

export interface McpProxyOptions {
  sdk: McpSdk;
  /** The wrapped server's name: tool calls' `mcpServer`, and in every message about it. */
  name: string;
  /** The wrapped server's command and its arguments, run as the client would run it. */
  command: string;
  args: readonly string[];
  /** The project whose extensions judge the calls (`--cwd`). */
  cwd: string;
  home?: string;
  logger: Logger;
  /** The client's connection; the process's stdin and stdout when left out. */
  input?: Readable;
  output?: Writable;
  /** As the bridge's (src/host/bridge/server.ts): an extension's crash of the process. */
  crashes?(listener: (crash: ProcessCrash) => void): () => void;
}

type Client = InstanceType<McpSdk['Client']>;

/**
 * `hermes mcp proxy`: an MCP server on stdio that starts the wrapped server at the client's
 * `initialize` (declaring to it the client's own capabilities and identity, and answering with
 * the wrapped server's), then stands between the two: tool lists and tool calls through the
 * extensions of `cwd`'s project (tool-list.ts, tool-calls.ts), everything else relayed unchanged
 * both ways (relay.ts). Resolves when the client closes the connection; the wrapped server is
 * stopped and the extensions closed (what they buffered is written).
 */
export async function serveMcpProxy(options: McpProxyOptions): Promise<void> {
  const { sdk, name, logger } = options;
  const { ErrorCode } = sdk.types;
  let told: ((crash: ProcessCrash) => void) | undefined;
  const stopListening = options.crashes?.((crash) => told?.(crash));
  const runtimes = new ServedRuntimes(
    () => loadRuntime({ cwd: options.cwd, home: options.home, logger }),
    logger,
    'mcp proxy',
  );
  told = (crash) => runtimes.crashed(crash);
  const session = new ProxySession(runtimes, `mcp-${randomUUID()}`);
  const toolList = new ToolList(session);
  const commandLine = [options.command, ...options.args].join(' ');

  const server = new (relayServer(sdk))(
    { name: 'hermes-mcp-proxy', version: packageVersion() },
    { capabilities: {} },
  );
  let wrapped: Client | undefined;
  let exited = false;
  /** The proxy is stopping the wrapped server itself (the client has gone). */
  let closing = false;
  let clientCapabilities: Parameters<typeof offersFormElicitation>[0];

  const gone = () =>
    rpcError(
      ErrorCode.ConnectionClosed,
      `the wrapped MCP server "${name}" (${commandLine}) has exited; its messages on this proxy's stderr say why. Restart the proxy (reconnect the server in the client) to start it again`,
    );
  const wrappedServer = (): Client => {
    if (exited) throw gone();
    if (wrapped === undefined) {
      throw rpcError(ErrorCode.InvalidRequest, 'the client has not sent initialize yet');
    }
    return wrapped;
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
      if (!closing)
        logger.error(`mcp proxy: the wrapped server "${name}" (${commandLine}) has exited`);
    };
    const transport = new sdk.StdioClientTransport({
      command: options.command,
      args: [...options.args],
      // Its environment is the proxy's, as the client gave it: the SDK's default keeps a few
      // variables only, and a server configured with API keys in its env needs them.
      env: Object.fromEntries(
        Object.entries(process.env).filter(
          (entry): entry is [string, string] => entry[1] !== undefined,
        ),
      ),
      stderr: 'inherit',
    });
    try {
      await client.connect(transport);
    } catch (error) {
      throw rpcError(
        ErrorCode.InternalError,
        `cannot start the wrapped MCP server "${name}" (${commandLine}): ${describeError(error)}`,
      );
    }
    wrapped = client;
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
    approver: () =>
      offersFormElicitation(clientCapabilities)
        ? elicitationApprover(sdk, server, name)
        : undefined,
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
  const input = options.input ?? process.stdin;
  await server.connect(new sdk.StdioServerTransport(input, options.output ?? process.stdout));
  // The SDK's transport does not watch for the end of its input: the client has gone then.
  input.once('end', () => {
    server.close().catch(() => undefined);
  });
  await closed;
  closing = true;
  await wrapped?.close().catch(() => undefined);
  await session.end();
  await runtimes.close();
  stopListening?.();
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
