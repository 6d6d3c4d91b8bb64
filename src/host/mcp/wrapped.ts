import type { McpSdk } from './sdk.js';

type Client = InstanceType<McpSdk['Client']>;
type Transport = Parameters<Client['connect']>[0];

/**
 * The MCP server the proxy wraps: a command it starts and speaks to on stdio, or a remote server
 * it reaches over Streamable HTTP (`--url`, with the headers `--header-env` read from the user's
 * environment).
 */
export type WrappedServer =
  | { command: string; args: readonly string[] }
  | { url: URL; headers: Readonly<Record<string, string>> };

/** The wrapped server as messages name it: its command line, or its URL. */
export function wrappedLabel(wrapped: WrappedServer): string {
  return 'url' in wrapped ? wrapped.url.href : [wrapped.command, ...wrapped.args].join(' ');
}

/** The SDK's client transport to the wrapped server: a new process, or a new HTTP session. */
export function wrappedTransport(sdk: McpSdk, wrapped: WrappedServer): Transport {
  if ('url' in wrapped) {
    return new sdk.StreamableHTTPClientTransport(wrapped.url, {
      // A redirect could take the messages, headers and all, elsewhere (as src/declared/remote.ts);
      // the SDK follows its event stream's only within the same origin.
      requestInit: { headers: { ...wrapped.headers }, redirect: 'error' },
    });
  }
  return new sdk.StdioClientTransport({
    command: wrapped.command,
    args: [...wrapped.args],
    // Its environment is the proxy's, as the client gave it: the SDK's default keeps a few
    // variables only, and a server configured with API keys in its env needs them.
    env: Object.fromEntries(
      Object.entries(process.env).filter(
        (entry): entry is [string, string] => entry[1] !== undefined,
      ),
    ),
    stderr: 'inherit',
  });
}

/**
 * Ends the connection to the wrapped server: a remote one is told the session is over (the
 * HTTP DELETE of the transport's spec) so it frees what it keeps for it; a process is stopped.
 */
export async function closeWrapped(client: Client, transport: Transport): Promise<void> {
  const remote = transport as Partial<{ terminateSession: () => Promise<void> }>;
  await remote.terminateSession?.().catch(() => undefined);
  await client.close().catch(() => undefined);
}
