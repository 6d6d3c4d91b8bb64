import { existsSync, readFileSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { block, defineExtension, getTurnState } from 'hermes-extensions';
import {
  extractToolPaths,
  type PathBase,
  resolveProjectPath,
  type ShellWord,
  shellInvocationOf,
} from 'hermes-extensions/policy';
import { moduleRouterConfig, toolNameKey } from './config.js';
import { modulePlacer } from './modules.js';
import { freshState, missedRead } from './reads.js';
import { commandScopes, toolScopes } from './scope.js';
import { shellRuns } from './shell.js';

/**
 * Module-aware exploration: a search or listing across modules — the whole tree, a folder that
 * holds several modules, a glob over their folders, or anything the router cannot place in one
 * module — is refused until a call in this turn has shown the routing file, which says which
 * module holds what; a search inside one module (a folder the routing file names) passes. A read
 * counts once the host reports that it ran and printed the file's text (post_tool_call, or the
 * tool results of the next model request), never when it is only asked for: a read refused by
 * another extension, failed, or that printed nothing does not count. The per-turn state holds the
 * read, so every turn starts by reading the file again. Without a routing file the extension stays
 * out of the way (and says so once).
 *
 * An exploration discipline, not a security boundary: it keeps an agent from searching the whole
 * codebase before it knows where to look. What a call may do by other means (a script, a program
 * it does not know) is not its business; docs/trust.md, "Threat model", says what guards hold.
 */
export default defineExtension({
  name: 'module-router',
  version: '1.1.0',
  description:
    'Searches across modules wait until the routing file (docs/MODULES.md) has been read',
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
    const routingText = () => {
      try {
        return readFileSync(resolve(root, config.routing_file), 'utf8');
      } catch {
        return '';
      }
    };
    const router = hermes.turnState(freshState);
    const placed = modulePlacer(root, config.routing_file);
    // `at`: the folder relative paths start from (default the root); null when it is not known.
    const isRoutingFile = (path: string, at?: PathBase | null) =>
      at === null && !isAbsolute(path)
        ? false
        : resolveProjectPath(root, path, at ?? undefined).real === routing.real;
    const namesRouting = (words: readonly ShellWord[], at: PathBase | undefined) =>
      words.some((w) => w.literal && isRoutingFile(w.value, at ?? null));

    /** `what`: the call, and why it counts as a search across modules. */
    const refusal = (what: string, missed: string | undefined) =>
      block(
        `Blocked by module-router: ${what}.${missed === undefined ? '' : ` ${missed}`} Read ${config.routing_file} first, in a call of its own with a file-reading tool: it says which module holds what. Then search inside that module's folder (or across modules, once the read has shown the file this turn).`,
        { moduleRouter: what },
      );
    const across = (what: string) => `${what} searches across modules`;

    const reads = new Set(config.read_tools.map(toolNameKey));
    const explores = new Set(config.exploration_tools.map(toolNameKey));
    const shells = new Set(config.shell_tools.map(toolNameKey));
    hermes.on(
      'intercept_tool_call',
      (event) => {
        const name = toolNameKey(event.toolName);
        const kind = reads.has(name)
          ? 'read'
          : explores.has(name)
            ? 'explore'
            : shells.has(name)
              ? 'shell'
              : undefined;
        if (kind === undefined || !routingExists()) return undefined;
        const state = router(event);
        // A call that would read the routing file counts once it is reported to have shown it.
        const expect = () => {
          if (event.toolCallId !== undefined && !state.pending.includes(event.toolCallId))
            state.pending.push(event.toolCallId);
        };
        if (kind === 'read') {
          if (extractToolPaths(event.toolArgs).some((p) => isRoutingFile(p))) expect();
          return undefined;
        }
        if (kind === 'explore') {
          if (state.routingRead || placed(toolScopes(event.toolName, event.toolArgs)))
            return undefined;
          return refusal(across(event.toolName), state.missed);
        }
        const invocation = shellInvocationOf(event.toolArgs);
        // A shell call whose arguments cannot be read may search anything.
        if (invocation.kind === 'unknown')
          return state.routingRead
            ? undefined
            : refusal(`${invocation.reason}: it may search anything`, state.missed);
        const { runs, unclear } = shellRuns(invocation, root);
        if (runs.some((run) => namesRouting(run.command.words, run.command.cwd))) expect();
        if (state.routingRead) return undefined;
        if (unclear !== undefined)
          return refusal(
            `${unclear}: where it searches cannot be told, so it counts as a search across modules`,
            state.missed,
          );
        const broad = runs.find((run) => {
          const scopes = commandScopes(run);
          return scopes !== undefined && !placed(scopes, run.command.cwd ?? null);
        });
        return broad === undefined
          ? undefined
          : refusal(across(`\`${broad.command.text}\``), state.missed);
      },
      {
        // A validator: it judges the search as it will run, after any rewrite.
        phase: 'validate',
        priority: 20,
      },
    );

    /** The reported outcome of a call that would read the routing file: did it show it? */
    const settle = (
      state: ReturnType<typeof router> | undefined,
      id: unknown,
      missed: () => string | undefined,
    ) => {
      if (state === undefined || typeof id !== 'string') return;
      const at = state.pending.indexOf(id);
      if (at === -1) return;
      state.pending.splice(at, 1);
      const why = missed();
      if (why === undefined) {
        state.routingRead = true;
        delete state.missed;
      } else state.missed = why;
    };
    // In-process hosts report a call's outcome inside the turn; its state is the session's.
    hermes.observe('post_tool_call', (payload) => {
      if (typeof payload.session_id !== 'string') return;
      const turn = getTurnState(payload.session_id);
      if (turn === undefined) return;
      settle(router({ state: turn }), payload.tool_call_id, () =>
        missedRead(payload, config.routing_file, routingText()),
      );
    });
    // Hosts that report outcomes outside the turn (a command hook's PostToolUse) still give the
    // next model request the calls' results: a result there settles a read not yet reported.
    hermes.on('before_llm_call', (event) => {
      const state = router(event);
      if (state.pending.length === 0) return undefined;
      for (const message of event.messages) {
        if (message.role !== 'tool') continue;
        settle(state, message.toolCallId, () =>
          missedRead({ status: 'ok', result: message.content }, config.routing_file, routingText()),
        );
      }
      return undefined;
    });
  },
});
