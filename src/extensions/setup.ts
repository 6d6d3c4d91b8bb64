import { isMatching, type P } from 'ts-pattern';
import { DEFAULT_PRIORITY, DEFAULT_TIMEOUT_MS, type RegisteredHandler } from '../chain/handler.js';
import { compileToolMatcher } from '../chain/matcher.js';
import { didYouMean } from '../config/suggest.js';
import type { OnErrorPolicy } from '../hooks/declaration.js';
import { HOOKS, type HookName } from '../hooks/index.js';
import type { HandlerOptions } from '../hooks/types.js';
import type { Logger } from '../log/logger.js';
import {
  isObserverEvent,
  OBSERVER_EVENTS,
  type ObserverEvent,
  type ObserverHandler,
} from '../observe/events.js';
import type { RegisteredObserver } from '../observe/observers.js';
import type { ExtensionDefinition, HermesApi } from './define.js';
import { codingFailures, withDiagnosticCode } from './failure-codes.js';
import { assertHookName } from './hook-names.js';
import { ownedBy, runOwnedBy } from './owner.js';
import { SandboxDenyRead } from './sandbox-deny-read.js';

/** Setup that has not finished by then is a load failure, not a hang of the whole agent. */
export const SETUP_TIMEOUT_MS = 10_000;

export interface SetupContext {
  config: unknown;
  projectRoot: string;
  extensionDir: string | undefined;
  log: Logger;
  /** How long setup may take. Default SETUP_TIMEOUT_MS. */
  timeoutMs?: number;
  /** Its config section says `mode: shadow`: every handler it registers is shadowed. */
  shadow?: boolean;
  /** The runtime's paths no sandboxed command may read (sandbox-deny-read.ts). */
  denyRead?: SandboxDenyRead;
}

/** How long one extension's `onClose` may take before `runtime.close()` goes on without it. */
export const DEFAULT_CLOSE_TIMEOUT_MS = 5_000;

/** Cleanup an extension registered with `hermes.onClose`, run by `runtime.close()`. */
export interface RegisteredCloser {
  readonly extension: string;
  readonly fn: () => unknown;
  readonly timeoutMs: number;
  readonly log: Logger;
}

/** A handler as registered, before the runtime orders all handlers of a hook. */
export interface Registration {
  handler: RegisteredHandler;
  /** Position inside its extension, the last tie-breaker. */
  index: number;
  /**
   * The extensions this handler runs before / after in its chain (order-by-name.ts). Kept here,
   * not on the handler: they matter once, when the runtime orders, and never in a call.
   */
  before: readonly string[];
  after: readonly string[];
}

/**
 * Runs an extension's `setup` and returns what it registered. Throws (with a message naming the
 * hook or option that was wrong) when setup throws, rejects, registers something invalid or
 * takes longer than its timeout (SETUP_TIMEOUT_MS unless the context says); the caller turns that
 * into a diagnostic.
 */
export async function runSetup(
  definition: ExtensionDefinition<unknown>,
  context: SetupContext,
): Promise<{
  handlers: Registration[];
  observers: RegisteredObserver[];
  closers: RegisteredCloser[];
}> {
  const registrations: Registration[] = [];
  const observers: RegisteredObserver[] = [];
  const closers: RegisteredCloser[] = [];
  let open = true;
  const denyRead = context.denyRead ?? new SandboxDenyRead();
  const hermes: HermesApi<unknown> = Object.freeze({
    name: definition.name,
    config: context.config,
    log: context.log,
    projectRoot: context.projectRoot,
    extensionDir: context.extensionDir,
    on(hook: HookName, fn: unknown, options?: HandlerOptions) {
      if (!open) {
        throw new Error(
          `hermes.on("${String(hook)}") was called after setup finished; register handlers inside setup()`,
        );
      }
      codingFailures('UNKNOWN_HOOK', () => assertHookName(hook));
      const { handler, before, after } = codingFailures('INVALID_REGISTRATION', () => ({
        handler: register(definition.name, hook, fn, options, context.log, context.shadow === true),
        before: extensionNames(hook, 'before', options?.before),
        after: extensionNames(hook, 'after', options?.after),
      }));
      registrations.push({ handler, index: registrations.length, before, after });
    },
    observe(event: ObserverEvent | '*', fn: unknown) {
      if (!open)
        throw new Error(`hermes.observe("${String(event)}") was called after setup finished`);
      if (event !== '*' && !isObserverEvent(event)) {
        const suggestion =
          typeof event === 'string' ? didYouMean(event, OBSERVER_EVENTS) : undefined;
        throw withDiagnosticCode(
          'UNKNOWN_EVENT',
          new TypeError(
            `unknown observer event ${JSON.stringify(event)}.${suggestion ? ` Did you mean "${suggestion}"?` : ''} Events are: ${OBSERVER_EVENTS.join(', ')}, or '*'.`,
          ),
        );
      }
      if (typeof fn !== 'function') {
        throw withDiagnosticCode(
          'INVALID_REGISTRATION',
          new TypeError(`hermes.observe("${event}"): the handler must be a function`),
        );
      }
      observers.push({
        extension: definition.name,
        event,
        fn: ownedBy(definition.name, fn as ObserverHandler),
        log: context.log,
        failed: false,
      });
    },
    turnState<T>(init: () => T) {
      return turnStateSlot(definition.name, init);
    },
    denySandboxRead(paths: unknown) {
      if (!open) throw new Error('hermes.denySandboxRead() was called after setup finished');
      codingFailures('INVALID_REGISTRATION', () => {
        if (typeof paths !== 'function') {
          throw new TypeError('hermes.denySandboxRead(paths): paths must be a function');
        }
      });
      // In shadow mode the extension decides nothing, and hiding files is deciding.
      if (context.shadow !== true) {
        denyRead.add(definition.name, ownedBy(definition.name, paths as () => readonly string[]));
      }
    },
    sandboxDenyRead() {
      return denyRead.paths();
    },
    onClose(fn: unknown, options?: { timeoutMs?: number }) {
      if (!open) throw new Error('hermes.onClose() was called after setup finished');
      const timeoutMs = codingFailures('INVALID_REGISTRATION', () => {
        if (typeof fn !== 'function')
          throw new TypeError('hermes.onClose(fn): fn must be a function');
        const ms = options?.timeoutMs ?? DEFAULT_CLOSE_TIMEOUT_MS;
        if (typeof ms !== 'number' || !(ms > 0)) {
          throw new TypeError(
            'hermes.onClose(fn, { timeoutMs }): timeoutMs must be a positive number of milliseconds',
          );
        }
        return ms;
      });
      closers.push({
        extension: definition.name,
        fn: ownedBy(definition.name, fn as () => unknown),
        timeoutMs,
        log: context.log,
      });
    },
  });
  try {
    await withSetupTimeout(
      Promise.resolve().then(() => runOwnedBy(definition.name, () => definition.setup(hermes))),
      context.timeoutMs ?? SETUP_TIMEOUT_MS,
    );
  } finally {
    open = false;
  }
  return { handlers: registrations, observers, closers };
}

/**
 * The getter `hermes.turnState` returns: the extension's name is the key, so two extensions never
 * share a slot by accident. An own key only: a name such as `constructor` must not find what
 * every object inherits.
 */
function turnStateSlot<T>(
  name: string,
  init: () => T,
): (event: { readonly state: Record<string, unknown> }) => T {
  if (typeof init !== 'function') {
    throw withDiagnosticCode(
      'INVALID_REGISTRATION',
      new TypeError('hermes.turnState(init): init must be a function that makes the first value'),
    );
  }
  return ({ state }) => {
    const kept = Object.hasOwn(state, name) ? state[name] : undefined;
    if (kept !== undefined) return kept as T;
    const made = init();
    state[name] = made;
    return made;
  };
}

function register(
  extension: string,
  hook: unknown,
  fn: unknown,
  options: HandlerOptions | undefined,
  log: Logger,
  shadow: boolean,
): RegisteredHandler {
  assertHookName(hook);
  const where = `hermes.on("${hook}")`;
  if (typeof fn !== 'function') throw new TypeError(`${where}: the handler must be a function`);
  const {
    priority = DEFAULT_PRIORITY,
    timeoutMs = DEFAULT_TIMEOUT_MS,
    onError,
    tools,
    phase = 'mutate',
    when,
  } = options ?? {};
  if (typeof priority !== 'number' || !Number.isFinite(priority)) {
    throw new TypeError(`${where}: priority must be a finite number, got ${String(priority)}`);
  }
  if (typeof timeoutMs !== 'number' || !(timeoutMs > 0)) {
    throw new TypeError(
      `${where}: timeoutMs must be a positive number of milliseconds (or Infinity)`,
    );
  }
  if (onError !== undefined && onError !== 'pass' && onError !== 'block') {
    throw new TypeError(
      `${where}: onError must be 'pass' or 'block', got ${JSON.stringify(onError)}`,
    );
  }
  if (phase !== 'mutate' && phase !== 'validate') {
    throw new TypeError(
      `${where}: phase must be 'mutate' or 'validate', got ${JSON.stringify(phase)}`,
    );
  }
  if (tools !== undefined && hook !== 'intercept_tool_call' && hook !== 'transform_tool_result') {
    throw new TypeError(
      `${where}: \`tools\` only applies to intercept_tool_call and transform_tool_result handlers`,
    );
  }
  return {
    extension,
    hook,
    fn: ownedBy(extension, fn as RegisteredHandler['fn']),
    priority,
    timeoutMs,
    onError: (onError ?? HOOKS[hook].defaultOnError) as OnErrorPolicy,
    tools: tools === undefined ? undefined : compileMatcher(where, tools),
    when: when === undefined ? undefined : compileWhen(where, when),
    phase,
    shadow,
    log,
    loggedErrors: new Set(),
  };
}

/** `before` / `after` as a list of names, each once; anything but non-empty strings is refused. */
function extensionNames(hook: HookName, option: 'before' | 'after', value: unknown): string[] {
  if (value === undefined) return [];
  const names = Array.isArray(value) ? value : [value];
  for (const name of names) {
    if (typeof name !== 'string' || name === '') {
      throw new TypeError(
        `hermes.on("${hook}"): ${option} must be an extension name or a list of them, got ${JSON.stringify(value)}`,
      );
    }
  }
  return [...new Set(names as string[])];
}

function compileMatcher(where: string, tools: NonNullable<HandlerOptions['tools']>) {
  try {
    return compileToolMatcher(tools);
  } catch (error) {
    throw new TypeError(`${where}: ${(error as Error).message}`);
  }
}

/** A `when` pattern as a test of one event; ts-pattern does the matching (docs/chain-semantics.md, Matching calls with `when`). */
function compileWhen(where: string, pattern: unknown): (event: unknown) => boolean {
  if (typeof pattern === 'function') {
    throw new TypeError(
      `${where}: \`when\` must be a ts-pattern pattern, not a function (wrap a predicate as P.when(fn))`,
    );
  }
  return isMatching(pattern as P.Pattern<unknown>);
}

function withSetupTimeout(setup: Promise<unknown>, ms: number): Promise<unknown> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          withDiagnosticCode('SETUP_TIMEOUT', new Error(`setup did not finish within ${ms} ms`)),
        ),
      ms,
    );
  });
  return Promise.race([setup, timeout]).finally(() => clearTimeout(timer));
}
