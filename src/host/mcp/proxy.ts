import type { Readable, Writable } from 'node:stream';
import { connectProxy, type McpProxyOptions, proxyRuntimes } from './connection.js';

export interface McpStdioProxyOptions extends McpProxyOptions {
  /** The client's connection; the process's stdin and stdout when left out. */
  input?: Readable;
  output?: Writable;
}

/**
 * `hermes mcp proxy` on stdio: one client, the process's stdin and stdout, one connection
 * (connection.ts). Resolves when the client closes the connection; the wrapped server is
 * stopped and the extensions closed (what they buffered is written).
 */
export async function serveMcpProxy(options: McpStdioProxyOptions): Promise<void> {
  const { runtimes, stop } = proxyRuntimes(options);
  const input = options.input ?? process.stdin;
  const connection = await connectProxy(
    options,
    runtimes,
    new options.sdk.StdioServerTransport(input, options.output ?? process.stdout),
  );
  // The SDK's transport does not watch for the end of its input: the client has gone then.
  input.once('end', () => {
    connection.close().catch(() => undefined);
  });
  await connection.ended;
  await stop();
}
