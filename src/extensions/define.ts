import type { P } from 'ts-pattern';
import type { z } from 'zod';
import { FRAMEWORK_NAME } from '../chain/outcome.js';
import { RESERVED_CONFIG_KEYS } from '../config/schema.js';
import type { HookName } from '../hooks/index.js';
import type {
  HandlerOptions,
  HookEventMap,
  HookHandler,
  MatchedHookHandler,
} from '../hooks/types.js';
import type { Logger } from '../log/logger.js';
import type { ObserverEvent, ObserverHandler } from '../observe/events.js';

/** What `setup(hermes)` receives: the one way an extension talks to the runtime. */
export interface HermesApi<Config = Record<string, unknown>> {
  /**
   * Register a handler. Only during `setup`; the chains are fixed once setup has finished. With
   * `when`, the handler runs only for matching events and its event type is narrowed to the
   * pattern.
   */
  on<H extends HookName, const W extends P.Pattern<HookEventMap[H]>>(
    hook: H,
    handler: MatchedHookHandler<H, W>,
    options: HandlerOptions<H> & { when: W },
  ): void;
  on<H extends HookName>(hook: H, handler: HookHandler<H>, options?: HandlerOptions<H>): void;
  /**
   * Observe an event (or every one, `'*'`) read-only: what the handler returns is ignored, a
   * promise is not awaited, a throw is logged once and changes nothing. Only during `setup`.
   */
  observe(event: ObserverEvent | '*', handler: ObserverHandler): void;
  /**
   * Register cleanup for `runtime.close()`: flush what is buffered, end connections, stop timers.
   * It runs after the observers still at work have settled, at the same time as every other
   * extension's (they hold separate resources, and one slow flush must not hold up the rest),
   * bounded by `timeoutMs` (default 5 000); a throw, a rejection or a timeout is logged and
   * changes nothing. Only during `setup`.
   */
  onClose(fn: () => unknown, options?: { timeoutMs?: number }): void;
  /**
   * This extension's own slot in the per-turn state, typed: the function returned gives, for an
   * event of any hook, the value kept under the extension's name in `event.state`, made by `init`
   * the first time a turn asks for it. Every turn starts without it, so every turn starts over.
   * Mutate it in place. Command hooks keep a turn's state as JSON between their processes: there
   * the value must be JSON data (no Date, Map, class instance or function).
   */
  turnState<T>(init: () => T): (event: { readonly state: Record<string, unknown> }) => T;
  /**
   * Keep files from every sandbox a tool call runs in (docs/policy.md, The OS sandbox): `paths`
   * is called each time one is made — the protected-ground sandbox, workflow-guard's — and gives
   * absolute paths; inside, each cannot be read. A throw refuses the call the sandbox was for.
   * Only during `setup`; in shadow mode it is recorded nowhere (the extension enforces nothing).
   */
  denySandboxRead(paths: () => readonly string[]): void;
  /**
   * The paths every extension keeps from sandboxes, as they are now: what an extension that
   * makes its own sandbox passes as its `denyRead` (hermes-extensions/policy's `SandboxOptions`).
   * Call it when the sandbox is made, not in `setup` (another extension may not be set up yet).
   */
  sandboxDenyRead(): string[];
  /** This extension's config section, parsed (defaults applied) by its `configSchema`. */
  readonly config: Config;
  readonly log: Logger;
  /** The project the agent works in (absolute). */
  readonly projectRoot: string;
  /** The folder the extension was loaded from; undefined for in-memory extensions. */
  readonly extensionDir: string | undefined;
  readonly name: string;
}

export interface ExtensionDefinition<Config = Record<string, unknown>> {
  /** Lower-case words joined by dashes, e.g. `workflow-guard`. */
  readonly name: string;
  readonly description?: string;
  readonly version?: string;
  readonly configSchema?: z.ZodType<Config>;
  setup(hermes: HermesApi<Config>): void | Promise<void>;
}

export const EXTENSION_NAME_PATTERN = /^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$/;

/**
 * Declares an extension. It checks the definition at once, so a mistake is reported where it
 * was made, and returns it unchanged (frozen) for the default export.
 */
export function defineExtension<Schema extends z.ZodType = z.ZodType<Record<string, unknown>>>(
  definition: ExtensionDefinition<z.output<Schema>> & { configSchema?: Schema },
): ExtensionDefinition<z.output<Schema>> {
  const problem = findDefinitionProblem(definition);
  if (problem) throw new TypeError(`defineExtension: ${problem}`);
  return Object.freeze({ ...definition });
}

/** Why a value cannot be used as an extension, or undefined when it can. */
export function findDefinitionProblem(value: unknown): string | undefined {
  if (value === null || typeof value !== 'object') {
    return `expected an object from defineExtension(...), got ${value === null ? 'null' : typeof value}`;
  }
  const def = value as Partial<Record<keyof ExtensionDefinition, unknown>>;
  if (typeof def.name !== 'string' || !EXTENSION_NAME_PATTERN.test(def.name)) {
    return `name must be lower-case words joined by dashes (like "workflow-guard"), got ${JSON.stringify(def.name)}`;
  }
  if (def.name === FRAMEWORK_NAME) {
    return `name "${FRAMEWORK_NAME}" is reserved: outcomes the framework decides itself (a tool that was not offered, a chain that failed) are by "${FRAMEWORK_NAME}"`;
  }
  if (RESERVED_CONFIG_KEYS.includes(def.name)) {
    return `name "${def.name}" is reserved (it is a key of the extensions config section)`;
  }
  if (typeof def.setup !== 'function')
    return `extension "${def.name}" has no setup(hermes) function`;
  for (const key of ['description', 'version'] as const) {
    if (def[key] !== undefined && typeof def[key] !== 'string') {
      return `extension "${def.name}": ${key} must be a string`;
    }
  }
  const schema = def.configSchema as { safeParse?: unknown } | undefined;
  if (schema !== undefined && typeof schema?.safeParse !== 'function') {
    return `extension "${def.name}": configSchema must be a zod schema`;
  }
  return undefined;
}
