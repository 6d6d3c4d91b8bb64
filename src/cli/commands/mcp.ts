import { defaultServerName } from '../../host/mcp/server-name.js';
import { stderrLogger } from '../../log/logger.js';
import { commandContext } from '../context.js';
import { CliError } from '../io.js';

export interface McpProxyFlags {
  cwd?: string;
  name?: string;
}

/**
 * `hermes mcp proxy [--name NAME] [--cwd DIR] -- <command> [args…]`: an MCP server on stdin and
 * stdout that runs `<command>` as the MCP server it wraps, and puts each of its tool calls
 * through the project's extensions (docs/mcp.md). Stdout is the protocol's: everything the proxy
 * has to say goes to stderr, which MCP clients keep as the server's log.
 */
export async function mcpProxyCommand(
  words: readonly string[],
  flags: McpProxyFlags,
): Promise<number> {
  const [command, ...args] = words;
  if (command === undefined || command === '') {
    throw new CliError(
      'mcp proxy needs the MCP server to wrap: hermes mcp proxy -- <command> [args…]',
      2,
    );
  }
  const name = flags.name ?? defaultServerName(command, args);
  if (name === '') throw new CliError('--name must not be empty', 2);
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
  const { serveMcpProxy } = await import('../../host/mcp/proxy.js');
  const { onProcessCrash, refusedExits } = await import('../../host/process-crash.js');
  let exits = () => {};
  await serveMcpProxy({
    sdk,
    name,
    command,
    args,
    cwd: context.cwd,
    home: context.home,
    logger: stderrLogger,
    // Kept to the end of the process, as the bridge's (serve.ts): what an extension left running may still throw.
    crashes: (listener) => {
      onProcessCrash(listener);
      exits = refusedExits(listener);
      return () => {};
    },
  });
  exits();
  // Whatever an extension left running ends with the proxy; unref'd, so a process with nothing
  // left ends at once, with its answers written.
  setTimeout(() => process.stdout.write('', () => process.exit(0)), 500).unref();
  return 0;
}
