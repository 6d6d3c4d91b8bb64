import type { Command } from 'commander';
import type { McpProxyFlags } from './commands/mcp-proxy-options.js';
import type { Registering } from './registering.js';

type McpInstallOptions = { cwd?: string; name?: string; scope?: string; wrap?: string };

/** `hermes mcp proxy | install | uninstall` (docs/mcp.md). */
export function registerMcp(program: Command, { run, withCwd, io }: Registering): void {
  const mcp = program
    .command('mcp')
    .description('put the extensions in front of any MCP server (docs/mcp.md)')
    .exitOverride();
  withCwd(mcp.command('proxy'))
    .description(
      "serve an MCP server (stdio, or Streamable HTTP with --http) that wraps <command> or --url and puts each of its tool calls through this project's extensions",
    )
    .argument('[command...]', 'the MCP server to wrap and its arguments, after --')
    .option(
      '--name <name>',
      "the server's name in tool calls and messages (default: the command's base name, or the URL's host)",
    )
    .option('--url <url>', 'wrap a remote MCP server over Streamable HTTP instead of a command')
    .option(
      '--header-env <header=VAR>',
      'send the remote server HEADER with the value of environment variable VAR (repeatable)',
      (pair: string, pairs: string[] = []) => [...pairs, pair],
    )
    .option(
      '--allow-insecure-url',
      '--url may be plain HTTP to another machine (refused by default)',
    )
    .option('--http <port>', 'serve the client over Streamable HTTP on this port instead of stdio')
    .option('--host <host>', 'the address --http binds (default 127.0.0.1; elsewhere warns)')
    .option(
      '--session-timeout <seconds>',
      'end an HTTP session that had no request open this long (default 1800)',
    )
    .action(
      run(async (words: string[], o: McpProxyFlags) => {
        const { mcpProxyCommand } = await import('./commands/mcp.js');
        return mcpProxyCommand(words, o);
      }),
    );
  withCwd(mcp.command('install'))
    .description(
      "start an MCP server through `hermes mcp proxy` in a client's config (claude-code, claude-desktop, cursor, vscode): a new one after --, or an existing one with --wrap",
    )
    .argument('<client>', 'claude-code, claude-desktop, cursor or vscode')
    .argument('[command...]', 'the MCP server to add and its arguments, after --')
    .option('--name <name>', "the server's name (default: the package or script it runs)")
    .option('--wrap <name>', 'wrap the server of that name the config already has, in place')
    .option('--scope <scope>', "project (the default; Claude Desktop's: user) or user")
    .action(
      run(async (client: string, words: string[], o: McpInstallOptions) => {
        const { mcpInstallCommand } = await import('./commands/mcp-install.js');
        return mcpInstallCommand(client, words, o, io);
      }),
    );
  withCwd(mcp.command('uninstall'))
    .description("put back in a client's config what `hermes mcp install` found there")
    .argument('<client>', 'claude-code, claude-desktop, cursor or vscode')
    .requiredOption('--name <name>', 'the server to unwrap')
    .option('--scope <scope>', 'project or user, as it was installed')
    .action(
      run(async (client: string, o: McpInstallOptions) => {
        const { mcpUninstallCommand } = await import('./commands/mcp-install.js');
        return mcpUninstallCommand(client, o, io);
      }),
    );
  for (const command of mcp.commands) command.exitOverride();
}
