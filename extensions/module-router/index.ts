import { existsSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { block, defineExtension } from 'hermes-extensions';
import {
  argvScript,
  extractToolPaths,
  type PathBase,
  parseShell,
  resolveProjectPath,
  type ShellCommand,
  type ShellScript,
  shellInvocationOf,
} from 'hermes-extensions/policy';
import { moduleRouterConfig } from './config.js';
import { shellScopes, toolScopes } from './scope.js';

/** What the router learned in this turn, in its slot of the per-turn state. */
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
    const router = hermes.turnState<RouterState>(() => ({ routingRead: false }));
    // `at`: the folder relative paths start from (default the root); null when it is not known.
    const isRoutingFile = (path: string, at?: PathBase | null) =>
      at === null && !isAbsolute(path)
        ? false
        : resolveProjectPath(root, path, at ?? undefined).real === routing.real;
    /** A folder at or above the project root, or one that cannot be known: the whole tree. */
    const isWholeTree = (scope: string, at?: PathBase | null) => {
      if (at === null && !isAbsolute(scope)) return true;
      const path = resolveProjectPath(root, scope, at ?? undefined);
      return path.inProject === undefined || path.inProject === '';
    };
    const from = (cwd: string | undefined) => resolve(root, cwd ?? '.');
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
        const state = router(event);
        const name = event.toolName;
        if (reads.has(name)) {
          if (extractToolPaths(event.toolArgs).some((p) => isRoutingFile(p)))
            state.routingRead = true;
          return undefined;
        }
        if (explores.has(name)) {
          const whole = toolScopes(event.toolArgs).some((scope) => isWholeTree(scope));
          if (state.routingRead || !whole) return undefined;
          return refusal(name);
        }
        const invocation = shellInvocationOf(event.toolArgs);
        // A shell call whose arguments cannot be read may search anything.
        if (invocation.kind === 'unknown')
          return state.routingRead ? undefined : refusal('a shell call');
        const commands: ShellCommand[] = [];
        let understood = true;
        for (const run of invocation.runs) {
          const script =
            typeof run === 'string'
              ? parseShell(run, from(invocation.cwd))
              : argvScript(run, from(invocation.cwd));
          understood &&= script.parsed;
          // `sh -c CODE` inside: its commands too, however deep.
          const pending = [...script.commands];
          for (let cmd = pending.shift(); cmd !== undefined; cmd = pending.shift()) {
            commands.push(cmd);
            const inner = innerShell(cmd);
            if (inner === undefined) continue;
            pending.push(...inner.commands);
            understood &&= inner.parsed;
          }
        }
        for (const cmd of commands) {
          const at = cmd.cwd;
          if (
            READERS.has(cmd.name) &&
            cmd.words.some((w) => w.literal && isRoutingFile(w.value, at ?? null))
          ) {
            state.routingRead = true;
          }
        }
        if (state.routingRead) return undefined;
        if (!understood) return refusal('a command the shell parser cannot read');
        const broad = commands.find((cmd) =>
          shellScopes(cmd)?.some(
            (scope) => scope === undefined || isWholeTree(scope, cmd.cwd ?? null),
          ),
        );
        return broad === undefined ? undefined : refusal(`\`${broad.name}\``);
      },
      {
        // A validator: it judges the search as it will run, after any rewrite.
        phase: 'validate',
        priority: 20,
        tools: [...config.read_tools, ...config.exploration_tools, ...config.shell_tools],
      },
    );
  },
});

/** Programs that print a file: reading the routing file with one counts as reading it. */
const READERS = new Set(['cat', 'head', 'tail', 'less', 'more', 'sed', 'nl', 'bat']);
/** The code of `sh -c CODE` (bash, dash), parsed where the shell starts. */
function innerShell(command: ShellCommand): ShellScript | undefined {
  if (!['sh', 'bash', 'dash'].includes(command.name)) return undefined;
  const flag = command.words.findIndex((w) => w.literal && /^-[a-z]*c[a-z]*$/.test(w.value));
  const code = command.words.slice(flag + 1).find((w) => !w.mayBeOption);
  if (flag === -1 || code === undefined) return undefined;
  if (!code.literal || command.cwd === undefined)
    return { commands: [], problems: [], parsed: false };
  return parseShell(code.value, command.cwd.lexical);
}
