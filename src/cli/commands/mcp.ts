import { stderrLogger } from '../../log/logger.js';
import { commandContext } from '../context.js';
import { CliError } from '../io.js';
import {
  DEFAULT_HOST,
  type McpProxyFlags,
  mcpProxyPlan,
  reachableFromOthers,
} from './mcp-proxy-options.js';

export type { McpProxyFlags } from './mcp-proxy-options.js';

/**
 * `hermes mcp proxy [--name NAME] [--cwd DIR] [--http PORT [--host H]] (-- <command> [args…] |
 * --url URL)`: an MCP server that wraps `<command>` (run on stdio) or a remote server over
 * Streamable HTTP, and puts each of its tool calls through the project's extensions
 * (docs/mcp.md). The proxy serves its client on stdin and stdout, or over HTTP with `--http`. On
 * stdio, stdout is the protocol's: everything the proxy has to say goes to stderr, which MCP
 * clients keep as the server's log.
 */
export async function mcpProxyCommand(
  words: readonly string[],
  flags: McpProxyFlags,
): Promise<number> {
  const plan = mcpProxyPlan(words, flags, process.env);
  const { loadMcpSdk, McpSdkUnavailable } = await import('../../host/mcp/sdk.js');
  let sdk: Awaited<ReturnType<typeof loadMcpSdk>>;
  try {
    sdk = await loadMcpSdk();
  } catch (error) {
    if (error instanceof McpSdkUnavailable) throw new CliError(`mcp proxy: ${error.message}`, 2);
    throw error;
  }
  // After the arguments: a usage mistake is reported before a problem with $HERMES_HOME.
  const context = commandContext(flags);
  // Stdout carries the protocol: what an extension prints with console goes to stderr, the
  // server's log, instead of breaking the client's stream.
  console.log = console.error;
  console.info = console.error;
  console.debug = console.error;
  const { onProcessCrash, refusedExits } = await import('../../host/process-crash.js');
  let exits = () => {};
  const options = {
    sdk,
    name: plan.name,
    wrapped: plan.wrapped,
    cwd: context.cwd,
    home: context.home,
    logger: stderrLogger,
    // Kept to the end of the process, as the bridge's (serve.ts): what an extension left running may still throw.
    crashes: (listener: Parameters<typeof onProcessCrash>[0]) => {
      onProcessCrash(listener);
      exits = refusedExits(listener);
      return () => {};
    },
  };
  if (plan.http === undefined) {
    const { serveMcpProxy } = await import('../../host/mcp/proxy.js');
    await serveMcpProxy(options);
  } else {
    const { host } = plan.http;
    const { serveMcpProxyHttp } = await import('../../host/mcp/http.js');
    await serveMcpProxyHttp({
      ...options,
      ...plan.http,
      listening: (url) => {
        // The warning first: a reader of the log (or a script waiting for the URL) sees it.
        if (reachableFromOthers(host)) {
          stderrLogger.warn(
            `hermes mcp proxy: warning: bound to ${host}, so other machines can reach it: anyone who connects can call "${plan.name}"'s tools as you, with no authentication (the extensions still judge each call). Leave out --host to serve this machine only (${DEFAULT_HOST}).`,
          );
        }
        stderrLogger.info(
          `hermes mcp proxy: serving "${plan.name}" over Streamable HTTP at ${url}`,
        );
      },
      stop: new Promise<void>((resolve) => {
        process.once('SIGINT', resolve);
        process.once('SIGTERM', resolve);
      }),
    });
  }
  exits();
  // Whatever an extension left running ends with the proxy; unref'd, so a process with nothing
  // left ends at once, with its answers written.
  setTimeout(() => process.stdout.write('', () => process.exit(0)), 500).unref();
  return 0;
}
