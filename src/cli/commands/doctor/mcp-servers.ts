import { hermesCommand } from '../../../command-name.js';
import { seenMcpServers } from '../../../host/mcp/config/servers.js';
import { mcpClientTitle } from '../../../policy/protected/mcp-configs.js';
import type { Check } from './check.js';

/**
 * One line per MCP server the clients' configs start (the project's and the user's, docs/mcp.md):
 * wrapped in `hermes mcp proxy`, its tool calls go through the extensions; not wrapped, they
 * reach the client's agent unjudged, which doctor says with the command that wraps it.
 */
export function mcpServerChecks(projectRoot: string): Check[] {
  const { servers, unread } = seenMcpServers(projectRoot);
  const checks: Check[] = unread.map(({ config, problem }) => ({
    level: 'warning',
    subject: `${mcpClientTitle(config.client)} MCP config`,
    message: `cannot be read, so doctor cannot tell which servers it starts: ${problem}`,
  }));
  for (const server of servers) {
    const where = `${mcpClientTitle(server.config.client)}, ${server.config.scope} (${server.config.path})`;
    const subject = `MCP server ${server.name}`;
    const scope =
      server.config.scope === 'user' && server.config.client !== 'claude-desktop'
        ? ' --scope user'
        : '';
    if (server.wrapped !== undefined) {
      const runs = [server.wrapped.command, ...server.wrapped.args].join(' ');
      checks.push(
        server.missing.length > 0
          ? {
              level: 'error',
              subject,
              message: `${where} starts it through hermes mcp proxy, but ${server.missing.join(' and ')} no longer exist${server.missing.length === 1 ? 's' : ''}: the client cannot start the server at all`,
              fix: `${hermesCommand()} mcp uninstall ${server.config.client}${scope} --name ${server.name}, then ${hermesCommand()} mcp install ${server.config.client}${scope} --wrap ${server.name}`,
            }
          : {
              level: 'ok',
              subject,
              message: `wrapped: ${where} starts ${runs} through hermes mcp proxy, so its tool calls go through the extensions`,
            },
      );
      continue;
    }
    checks.push(
      server.program
        ? {
            level: 'info',
            subject,
            message: `not wrapped: ${where} starts it directly, so its tool calls reach the agent without the extensions`,
            fix: `${hermesCommand()} mcp install ${server.config.client}${scope} --wrap ${server.name}`,
          }
        : {
            level: 'info',
            subject,
            message: `not wrapped: ${where} reaches it by URL; hermes mcp install wraps servers started as a program`,
          },
    );
  }
  return checks;
}
