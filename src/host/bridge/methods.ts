import { z } from 'zod';
import { declarationOf, HOOK_NAMES, type HookName } from '../../hooks/index.js';
import { firstIssue, readPayload, wordIssue } from '../../hooks/payload.js';
import type { Logger } from '../../log/logger.js';
import { OBSERVER_EVENTS } from '../../observe/events.js';
import { sanitize } from '../../observe/sanitize.js';
import { packageVersion } from '../../package-root.js';
import { runHook } from '../../runtime/run-hook.js';
import type { Runtime } from '../../runtime/runtime.js';
import { refusedAfterCrash } from '../crash-outcome.js';
import { ServedRuntimes } from '../served-runtimes.js';
import { eventInDialect, inDialect, TOOL_DIALECTS, type ToolDialect } from './dialect.js';
import { RPC, RpcError } from './json-rpc.js';
import { BridgeTurns } from './turns.js';
import { outcomeToWire } from './wire.js';

export interface Served {
  /** The runtime serving, and those an extension crashed (served-runtimes.ts). */
  runtimes: ServedRuntimes;
  turns: BridgeTurns;
  /** The bridge's folder (`--cwd`): where the host runs a shell call that names no folder. */
  cwd: string;
  /** Whose tool names the host's calls use, once its `initialize` said (dialect.ts). */
  toolDialect?: ToolDialect;
}

/** What the methods serve: the runtimes `load` gives (served-runtimes.ts), their turns, the folder. */
export function serving(load: () => Promise<Runtime>, cwd: string, logger: Logger): Served {
  const runtimes = new ServedRuntimes(load, logger, 'bridge');
  return { runtimes, turns: new BridgeTurns(runtimes), cwd };
}

/** One method: its params as zod, checked before it runs, and what it does with them. */
interface Method {
  readonly params: z.ZodType;
  run(served: Served, params: unknown): unknown;
}

function method<Params>(
  params: z.ZodType<Params>,
  run: (served: Served, params: Params) => unknown,
): Method {
  // `dispatch` runs it only on params that fit `params`.
  return { params, run: run as Method['run'] };
}

const nonEmpty = z.string().min(1);
/** A call in a turn: only its `turn_id` is read before the turn is found. */
const inTurn = z.looseObject({ turn_id: z.string() });
/**
 * A hook call: its turn, and how long the host waits for it (`deadline_ms`), which lowers each
 * chain's time limit for this call (docs/chain-semantics.md, A deadline for the whole chain).
 */
const hookCall = inTurn.extend({
  deadline_ms: z
    .number({ error: 'deadline_ms must be a number of milliseconds' })
    .positive({ error: 'deadline_ms must be more than 0' })
    .finite()
    .optional(),
});

/**
 * The bridge's methods (the README's "Any language, over stdio"). A method not here is -32601;
 * params that do not fit its schema are -32602 naming the param, before anything runs; whatever
 * else throws is -32603. The hook methods come from the hook declarations (`src/hooks/`).
 */
const METHODS: Readonly<Record<string, Method>> = {
  initialize: method(
    z.looseObject({
      // Whose tool names the host's calls use; left out, the framework's own.
      tool_dialect: z.enum(TOOL_DIALECTS).optional(),
    }),
    async (served, params) => {
      setDialect(served, params.tool_dialect);
      return info(await served.runtimes.fresh().runtime);
    },
  ),

  'turn/start': method(
    z.object({
      session_id: nonEmpty,
      platform: z.string().optional(),
      turn_id: nonEmpty.optional(),
    }),
    ({ turns }, params) => turns.start(params),
  ),

  'turn/end': method(inTurn, ({ turns }, params) => turns.end(params.turn_id)),

  event: method(z.looseObject({ event: z.enum(OBSERVER_EVENTS) }), async (served, params) => {
    // Observer events only the host knows (API requests, its own tool runs), usually sent as
    // notifications; passed on sanitized, with the ids the host gives, a tool call named as
    // extensions name it. To a working runtime's observers: one loaded afresh after a crash.
    const { toolDialect, cwd } = served;
    const runtime = await served.runtimes.fresh().runtime;
    const { event, ...told } = params;
    const fields = toolDialect === undefined ? told : eventInDialect(told, cwd);
    if (runtime.hasHook(event)) runtime.emit(event, sanitize(fields) as Record<string, unknown>);
    return { delivered: runtime.hasHook(event) };
  }),

  ...Object.fromEntries(HOOK_NAMES.map((hook) => [hook, hookMethod(hook)])),
};

/** What `initialize` answers: the server, its hooks and its extensions. */
function info(runtime: Runtime) {
  return {
    protocol: 'hermes-extensions/1',
    version: packageVersion(),
    project_root: runtime.projectRoot,
    // A client skips a hook said to have no handler (the Hermes agent's plugin does); hasHook
    // says intercept_tool_call always, for the framework's protected-ground rule.
    hooks: Object.fromEntries(HOOK_NAMES.map((h) => [h, runtime.hasHook(h)])),
    extensions: runtime.extensions.map((e) => ({
      name: e.name,
      status: e.status,
      source: e.source,
      version: e.version,
      hooks: e.hooks,
      load_ms: e.loadMs,
    })),
    diagnostics: runtime.diagnostics,
  };
}

/**
 * A host names its tools once, at `initialize`: the calls it sends are judged by that name, so a
 * later `initialize` naming another is refused rather than renaming calls under way.
 */
function setDialect(served: Served, dialect: ToolDialect | undefined): void {
  if (dialect === undefined || dialect === served.toolDialect) return;
  if (served.toolDialect !== undefined) {
    throw new RpcError(
      RPC.invalidParams,
      `tool_dialect is "${served.toolDialect}" for this server already; start another server for a host of another dialect`,
    );
  }
  served.toolDialect = dialect;
}

/**
 * A hook point as a method: its payload in the declaration's wire names, its outcome on the wire.
 * In a turn whose runtime an extension crashed, the hook's fail rule answers instead of the
 * chain, naming the extension (src/host/crash-outcome.ts): a call in flight then, and every later one.
 */
function hookMethod<H extends HookName>(hook: H): Method {
  const decl = declarationOf(hook);
  return method(hookCall, async ({ turns, toolDialect, cwd }, params) => {
    // Counted from when the request is read: the host's own wait started a little before.
    const deadline = params.deadline_ms === undefined ? undefined : Date.now() + params.deadline_ms;
    // The turn before the payload, as ever: a call naming no open turn is -32001 whatever it carries.
    const { turn, runtime } = turns.get(params.turn_id);
    const read = readPayload(decl, params, 'wire');
    if ('problem' in read) throw new RpcError(RPC.invalidParams, read.problem);
    // The host's tool names as extensions know them, and the answer back in the host's.
    const named =
      toolDialect === undefined
        ? { input: read.input, valueOut: (value: unknown) => value }
        : inDialect(hook, read.input as Record<string, unknown>, cwd);
    const input = named.input as typeof read.input;
    const outcome = await runtime.decide(
      async () => runHook(turn, hook, input, deadline),
      (crash) => refusedAfterCrash(decl, input, crash),
    );
    const { valueToWire } = decl.wire;
    return outcomeToWire(
      outcome,
      named.valueOut(valueToWire === undefined ? outcome.value : valueToWire(outcome.value)),
    );
  });
}

export async function dispatch(served: Served, name: string, params: unknown): Promise<unknown> {
  const called = Object.hasOwn(METHODS, name) ? METHODS[name] : undefined;
  if (called === undefined) throw new RpcError(RPC.methodNotFound, `unknown method "${name}"`);
  const checked = called.params.safeParse(params === undefined ? {} : params);
  if (!checked.success) {
    throw new RpcError(RPC.invalidParams, wordIssue(firstIssue(checked.error)));
  }
  // The schemas only check (no defaults, no transforms), so a method reads the host's own params:
  // nothing of them is copied, and no key of theirs (not even `__proto__`) is dropped.
  return called.run(served, params === undefined ? {} : params);
}
