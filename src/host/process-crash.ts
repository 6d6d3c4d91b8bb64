import { describeError } from '../chain/errors.js';
import { currentOwner, ownerInStack, trackExtensionOwners } from '../extensions/owner.js';

/**
 * An uncaught exception or an unhandled rejection of the process (or of the worker thread), or
 * an extension's call to `process.exit` (refusedExits), with the extension whose code did it when
 * that is known (owner.ts).
 */
export interface ProcessCrash {
  kind: 'uncaught exception' | 'unhandled rejection' | 'process.exit';
  /** What was thrown; for `process.exit`, an Error saying the call, made where it was called. */
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

/**
 * Calls `listener` for each call of `process.exit` made by an extension's code (owner.ts), and
 * throws in that code instead of ending the process: a server that answers many calls (the
 * bridge) would otherwise end with no answer to the call in flight and none to any later one.
 * The throw stops the extension where it called, as the exit would have (a handler's throw is a
 * handler error, fail closed on a guard). A call that is no extension's (the host's own, a
 * closed pipe) ends the process as ever. Owner tracking must be on (onProcessCrash). Returns what
 * puts `process.exit` back.
 */
export function refusedExits(listener: (crash: ProcessCrash) => void): () => void {
  const exit = process.exit;
  const refusing = function exitUnlessAnExtension(code?: number | string | null) {
    const made = new Error(`process.exit(${code ?? ''})`);
    const extension = currentOwner() ?? ownerInStack(made.stack);
    if (extension === undefined) return exit.call(process, code);
    try {
      listener({ kind: 'process.exit', error: made, extension });
    } catch (failure) {
      process.stderr.write(`hermes: an exit could not be answered: ${describeError(failure)}\n`);
    }
    throw new Error(
      `extension "${extension}" called process.exit(${code ?? ''}), which the host refuses: an extension ends by returning`,
    );
  } as typeof process.exit;
  process.exit = refusing;
  return () => {
    if (process.exit === refusing) process.exit = exit;
  };
}

/** What a crash says in an answer, in one line: whose code, and what it threw or called. */
export function crashReason(crash: ProcessCrash): string {
  const who = crash.extension === undefined ? 'an extension' : `extension "${crash.extension}"`;
  if (crash.kind === 'process.exit') {
    const call = crash.error instanceof Error ? crash.error.message : 'process.exit()';
    return `${who} called ${call}, which the host refuses`;
  }
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
