import { nativeImport } from '../../modules/native-import.js';
import { installPeerAdvice, optionalPeer, peerProblem } from '../../optional-peers.js';

const SDK = '@modelcontextprotocol/sdk';

/**
 * The MCP SDK cannot be loaded: it is not installed (an optional peer dependency,
 * src/optional-peers.ts), or another version is. The message says which and how to install it.
 */
export class McpSdkUnavailable extends Error {
  constructor(problem: string) {
    super(
      `${problem}: ${installPeerAdvice(SDK)} (\`hermes mcp\` speaks the Model Context Protocol with it; a default install of hermes-extensions leaves it out)`,
    );
    this.name = 'McpSdkUnavailable';
  }
}

/** The parts of the SDK the proxy uses, loaded together. */
export interface McpSdk {
  Server: typeof import('@modelcontextprotocol/sdk/server/index.js').Server;
  Client: typeof import('@modelcontextprotocol/sdk/client/index.js').Client;
  StdioServerTransport: typeof import('@modelcontextprotocol/sdk/server/stdio.js').StdioServerTransport;
  StdioClientTransport: typeof import('@modelcontextprotocol/sdk/client/stdio.js').StdioClientTransport;
  StreamableHTTPServerTransport: typeof import('@modelcontextprotocol/sdk/server/streamableHttp.js').StreamableHTTPServerTransport;
  StreamableHTTPClientTransport: typeof import('@modelcontextprotocol/sdk/client/streamableHttp.js').StreamableHTTPClientTransport;
  types: typeof import('@modelcontextprotocol/sdk/types.js');
}

/**
 * The SDK, at the version package.json pins (fail closed: the proxy relays what that version
 * parses, and another may parse otherwise). Imported by name from the framework's own files, so
 * Node finds the copy beside hermes-extensions that optionalPeer looked at — never one the
 * project the proxy serves puts in its own node_modules.
 */
export async function loadMcpSdk(): Promise<McpSdk> {
  const peer = optionalPeer(SDK);
  const problem = peerProblem(peer);
  if (problem !== undefined) throw new McpSdkUnavailable(problem);
  // Node's own `import()`: the SDK's ES modules, which the command line's bundle, a script, would
  // otherwise `require` as the SDK's other, CommonJS build (scripts/bundle-cli.mjs).
  const part = <T>(path: string) => nativeImport(`${SDK}/${path}`) as Promise<T>;
  const [server, client, serverStdio, clientStdio, serverHttp, clientHttp, types] =
    await Promise.all([
      part<typeof import('@modelcontextprotocol/sdk/server/index.js')>('server/index.js'),
      part<typeof import('@modelcontextprotocol/sdk/client/index.js')>('client/index.js'),
      part<typeof import('@modelcontextprotocol/sdk/server/stdio.js')>('server/stdio.js'),
      part<typeof import('@modelcontextprotocol/sdk/client/stdio.js')>('client/stdio.js'),
      part<typeof import('@modelcontextprotocol/sdk/server/streamableHttp.js')>(
        'server/streamableHttp.js',
      ),
      part<typeof import('@modelcontextprotocol/sdk/client/streamableHttp.js')>(
        'client/streamableHttp.js',
      ),
      part<typeof import('@modelcontextprotocol/sdk/types.js')>('types.js'),
    ]);
  return {
    Server: server.Server,
    Client: client.Client,
    StdioServerTransport: serverStdio.StdioServerTransport,
    StdioClientTransport: clientStdio.StdioClientTransport,
    StreamableHTTPServerTransport: serverHttp.StreamableHTTPServerTransport,
    StreamableHTTPClientTransport: clientHttp.StreamableHTTPClientTransport,
    types,
  };
}
