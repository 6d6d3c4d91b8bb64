import type { OnErrorPolicy } from '../hooks/declaration.js';
import type { HookName } from '../hooks/index.js';
import type { HandlerPhase } from '../hooks/types.js';
import type { Logger } from '../log/logger.js';
import type { ToolMatcher } from './matcher.js';

export const DEFAULT_PRIORITY = 100;
export const DEFAULT_TIMEOUT_MS = 5000;

/** A handler as the chain runner holds it: options resolved once, at registration. */
export interface RegisteredHandler {
  readonly extension: string;
  readonly hook: HookName;
  readonly fn: (event: never) => unknown;
  readonly priority: number;
  readonly timeoutMs: number;
  readonly onError: OnErrorPolicy;
  readonly tools: ToolMatcher | undefined;
  /** The handler's `when` pattern, compiled: called with the event before the handler. */
  readonly when: ((event: unknown) => boolean) | undefined;
  /** The runtime puts every validator after every mutator; the runner refuses a validator's change. */
  readonly phase: HandlerPhase;
  readonly log: Logger;
  /**
   * Its extension runs in shadow mode (`mode: shadow` in its config section): what it decides is
   * recorded in the trace and not applied (shadow.ts).
   */
  readonly shadow: boolean;
  /** Error messages already logged for this handler, so a failing guard logs each once. */
  readonly loggedErrors: Set<string>;
}
