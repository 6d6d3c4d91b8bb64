import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import {
  analyzeShell,
  block,
  defineExtension,
  extractToolPaths,
  resolveProjectPath,
  shellCommandOf,
} from 'hermes-extensions';
import { moduleRouterConfig } from './config.js';
import { shellScopes, toolScopes } from './scope.js';

/** What the router learned in this turn, kept in the per-turn state under its name. */
interface RouterState {
  routingRead: boolean;
}

/**
 * Module-aware exploration: searching or listing the whole tree is blocked until the turn has
 * read the routing file, which says which module to look in; searches inside a module pass. The
 * per-turn state remembers the read, so every turn starts by reading it again. Without a routing
 * file the extension stays out of the way (and says so once).
 */
export default defineExtension({
  name: 'module-router',
  version: '1.0.0',
  description: 'Broad searches wait until the routing file (docs/MODULES.md) has been read',
  configSchema: moduleRouterConfig,
  setup(hermes) {
    const config = hermes.config;
    const root = hermes.projectRoot;
    const routing = resolveProjectPath(root, config.routing_file);
    let saidMissing = false;
    const routingExists = () => {
      if (existsSync(resolve(root, config.routing_file))) return true;
      if (!saidMissing) {
        saidMissing = true;
        hermes.log.info(`no routing file at ${config.routing_file}: exploration is not restricted`);
      }
      return false;
    };
    const stateOf = (state: Record<string, unknown>): RouterState => {
      state['module-router'] ??= { routingRead: false } satisfies RouterState;
      return state['module-router'] as RouterState;
    };
    const isRoutingFile = (path: string) => resolveProjectPath(root, path).real === routing.real;
    /** A folder at or above the project root: the whole tree. */
    const isWholeTree = (scope: string) => {
      const path = resolveProjectPath(root, scope);
      return path.inProject === undefined || path.inProject === '';
    };
    const refusal = (what: string) =>
      block(
        `Blocked by module-router: ${what} searches the whole tree. Read ${config.routing_file} first: it says which module holds what. Then search inside that module (or the whole tree, once it has been read this turn).`,
        { moduleRouter: what },
      );

    const reads = new Set(config.read_tools);
    const explores = new Set(config.exploration_tools);
    hermes.on(
      'intercept_tool_call',
      (event) => {
        if (!routingExists()) return undefined;
        const state = stateOf(event.state);
        const name = event.toolName;
        if (reads.has(name)) {
          if (extractToolPaths(event.toolArgs).some(isRoutingFile)) state.routingRead = true;
          return undefined;
        }
        if (explores.has(name)) {
          if (state.routingRead || !toolScopes(event.toolArgs).some(isWholeTree)) return undefined;
          return refusal(name);
        }
        const command = shellCommandOf(event.toolArgs);
        const analysis = command === undefined ? undefined : analyzeShell(command);
        if (analysis?.kind !== 'analyzed') return undefined;
        for (const cmd of analysis.commands) {
          if (
            ['cat', 'head', 'less', 'more', 'tail'].includes(cmd.name) &&
            cmd.args.some(isRoutingFile)
          ) {
            state.routingRead = true;
          }
        }
        if (state.routingRead) return undefined;
        const broad = analysis.commands.find((cmd) => shellScopes(cmd)?.some(isWholeTree));
        return broad === undefined ? undefined : refusal(`\`${broad.name}\``);
      },
      {
        priority: 20,
        tools: [...config.read_tools, ...config.exploration_tools, ...config.shell_tools],
      },
    );
  },
});
