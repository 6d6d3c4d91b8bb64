import { join } from 'node:path';
import { findProjectRoot } from '../../config/locations.js';
import { McpConfigError } from '../../host/mcp/config/config-file.js';
import {
  installServer,
  installTarget,
  type McpScope,
  uninstallServer,
} from '../../host/mcp/config/install.js';
import { defaultServerName } from '../../host/mcp/server-name.js';
import { PACKAGE_ROOT } from '../../package-root.js';
import { MCP_CLIENT_NAMES, type McpClientName } from '../../policy/protected/mcp-configs.js';
import { commandContext } from '../context.js';
import { CliError, type Io } from '../io.js';

export interface McpInstallFlags {
  cwd?: string;
  name?: string;
  scope?: string;
  wrap?: string;
}

/**
 * `hermes mcp install <client> [--name NAME] [--scope project|user] -- <command> [args…]`, or
 * `--wrap NAME`: the client's MCP config starts the server through `hermes mcp proxy`, run by
 * the installed hermes with absolute paths (as `hermes hook install` writes its hook), so that the
 * client's PATH or the project's node_modules cannot swap it (docs/mcp.md, Installing into a client).
 */
export async function mcpInstallCommand(
  clientName: string,
  words: readonly string[],
  flags: McpInstallFlags,
  io: Io,
): Promise<number> {
  const client = clientNamed(clientName);
  const scope = scopeOf(flags.scope);
  if (flags.wrap !== undefined && words.length > 0)
    throw new CliError('give either --wrap NAME or a command after --, not both', 2);
  if (flags.wrap === undefined && (words[0] === undefined || words[0] === ''))
    throw new CliError(
      `mcp install needs the server: hermes mcp install ${client} [--name NAME] -- <command> [args…], or --wrap NAME for a server the config has`,
      2,
    );
  const [command, ...args] = words as [string, ...string[]];
  const name = flags.wrap ?? flags.name ?? defaultServerName(command, args);
  if (name === '') throw new CliError('--name must not be empty', 2);
  const context = commandContext(flags);
  const project = findProjectRoot(context.cwd, context.home);
  return reported(async () => {
    const target = installTarget(client, scope, project);
    const proxy = [
      process.execPath,
      join(PACKAGE_ROOT, 'bin', 'hermes.js'),
      'mcp',
      'proxy',
      '--name',
      name,
      // A project's servers judged by that project's extensions wherever the client starts them.
      ...(target.scope === 'project' ? ['--cwd', project] : []),
    ];
    const request =
      flags.wrap !== undefined
        ? { kind: 'wrap' as const, name }
        : { kind: 'new' as const, name, command, args };
    io.out(await installServer(target, request, proxy, context.home));
  }, io);
}

/** `hermes mcp uninstall <client> --name NAME [--scope project|user]`. */
export async function mcpUninstallCommand(
  clientName: string,
  flags: McpInstallFlags,
  io: Io,
): Promise<number> {
  const client = clientNamed(clientName);
  const scope = scopeOf(flags.scope);
  const name = flags.name ?? flags.wrap;
  if (name === undefined || name === '')
    throw new CliError(
      `mcp uninstall needs the server's name: hermes mcp uninstall ${client} --name NAME`,
      2,
    );
  const context = commandContext(flags);
  const project = findProjectRoot(context.cwd, context.home);
  return reported(async () => {
    io.out(await uninstallServer(installTarget(client, scope, project), name, context.home));
  }, io);
}

function clientNamed(name: string): McpClientName {
  const client = MCP_CLIENT_NAMES.find((known) => known === name);
  if (client === undefined)
    throw new CliError(`unknown MCP client "${name}": one of ${MCP_CLIENT_NAMES.join(', ')}`, 2);
  return client;
}

function scopeOf(scope: string | undefined): McpScope | undefined {
  if (scope === undefined || scope === 'project' || scope === 'user') return scope;
  throw new CliError(`--scope is project or user, not "${scope}"`, 2);
}

/** A config that cannot be read or changed is the user's to fix: said in one line, exit 1. */
async function reported(change: () => Promise<void>, io: Io): Promise<number> {
  try {
    await change();
    return 0;
  } catch (error) {
    if (error instanceof McpConfigError) {
      io.err(`hermes mcp: ${error.message}`);
      return 1;
    }
    throw error;
  }
}
