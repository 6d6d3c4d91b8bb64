import { describeError } from '../../chain/errors.js';
import { currentOwner, ownerInStack, trackExtensionOwners } from '../../extensions/owner.js';

/**
 * An uncaught exception or an unhandled rejection of the process (or of the worker thread), with
 * the extension whose code threw it when that is known (owner.ts).
 */
export interface ProcessCrash {
  kind: 'uncaught exception' | 'unhandled rejection';
  error: unknown;
  extension: string | undefined;
}

/**
 * Calls `listener` for each uncaught exception and unhandled rejection of this process (in a
 * worker thread: of the thread), instead of Node ending it with exit 1 and no answer — which
 * both agents take for a hook that failed, and run the call. Turns owner tracking on, so it must
 * be called before any extension loads. Returns what removes the handlers.
 */
export function onProcessCrash(listener: (crash: ProcessCrash) => void): () => void {
  trackExtensionOwners();
  // Node calls these in the async context of the code that threw: the owner is read there, and
  // else from where the stack says the error was made.
  const tell = (kind: ProcessCrash['kind'], error: unknown) => {
    try {
      const extension = currentOwner() ?? ownerInStack(stackOf(error));
      listener({ kind, error, extension });
    } catch (failure) {
      // A throw in here would end the process with no answer, which is what this prevents.
      process.stderr.write(`hermes: a crash could not be answered: ${describeError(failure)}\n`);
    }
  };
  const uncaught = (error: unknown) => tell('uncaught exception', error);
  const rejected = (reason: unknown) => tell('unhandled rejection', reason);
  process.on('uncaughtException', uncaught);
  process.on('unhandledRejection', rejected);
  return () => {
    process.off('uncaughtException', uncaught);
    process.off('unhandledRejection', rejected);
  };
}

/** What a crash says in an answer, in one line: whose code, and what it threw. */
export function crashReason(crash: ProcessCrash): string {
  const who = crash.extension === undefined ? 'an extension' : `extension "${crash.extension}"`;
  return `${who} raised an ${crash.kind}: ${describeError(crash.error)}`;
}

/** A thrown value's stack, for stderr and logs: where an author finds the line that threw. */
export function stackOf(error: unknown): string | undefined {
  try {
    const stack = (error as Error | undefined)?.stack;
    return typeof stack === 'string' ? stack : undefined;
  } catch {
    return undefined;
  }
}
