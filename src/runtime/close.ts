import type { RegisteredCloser } from '../extensions/setup.js';

/** How long `runtime.close()` waits for observers still at work, unless told otherwise. */
export const OBSERVER_CLOSE_TIMEOUT_MS = 5_000;

/**
 * Runs every extension's `onClose` at once, each bounded by its own `timeoutMs`: they hold
 * separate resources (a file, a connection), so none waits for another, and the whole takes as
 * long as the slowest one. A throw, a rejection or a timeout is logged to that extension's log;
 * nothing is thrown.
 */
export async function runClosers(closers: readonly RegisteredCloser[]): Promise<void> {
  await Promise.all(closers.map(runCloser));
}

async function runCloser(closer: RegisteredCloser): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), closer.timeoutMs);
  });
  // Called inside a promise chain, so a throw is a rejection and a thenable is adopted.
  const closing = Promise.resolve()
    .then(() => closer.fn())
    .then(
      () => undefined,
      (error: unknown) => ({ error }),
    );
  const result = await Promise.race([closing, timedOut]).finally(() => clearTimeout(timer));
  if (result === undefined) return;
  warn(
    closer,
    result === 'timeout'
      ? `onClose did not finish within ${closer.timeoutMs} ms; the runtime closed without waiting for it`
      : `onClose failed (${reasonOf(result.error)}); the runtime closed anyway`,
  );
}

/** One line about a thrown value, whatever it is (even an Error whose `message` throws). */
function reasonOf(error: unknown): string {
  try {
    if (error instanceof Error) return `${error.name}: ${error.message}`.split('\n')[0] as string;
    return String(error);
  } catch {
    return 'a value that cannot be described';
  }
}

function warn(closer: RegisteredCloser, message: string): void {
  try {
    closer.log.warn(message);
  } catch {
    // A logger that throws changes nothing.
  }
}
