import { describeError } from '../../chain/errors.js';
import type { Logger } from '../../log/logger.js';
import { stackOf } from '../process-crash.js';

/** How long stopping may take after a crash before the daemon exits anyway. */
const STOP_MS = 5_000;

export interface DaemonCrashOptions {
  log: Logger;
  /** Stops listening, removes the socket, ends the runtimes (server.ts `stop`). */
  stop(): Promise<void>;
  /** Ends the process; default process.exit. */
  exit?(code: number): void;
  /** Subscribes to the process's crashes; default its uncaught exceptions and unhandled rejections. */
  crashes?(listener: (kind: string, error: unknown) => void): void;
}

/**
 * The hook daemon's own safety net. Extensions run in worker threads that answer their own
 * crashes (worker-events.ts), so an uncaught exception or unhandled rejection here is a fault of
 * the daemon, whose state is then unknown: it is logged, and the daemon stops and exits 1. Its
 * socket is gone, so each hook answers in-process meanwhile, as when no daemon runs; a hook whose
 * event was in flight gets no answer from it and answers in-process too (client.ts).
 */
export function exitOnDaemonCrash(options: DaemonCrashOptions): void {
  const exit = options.exit ?? ((code: number) => process.exit(code));
  let crashed = false;
  const onCrash = (kind: string, error: unknown) => {
    const stack = stackOf(error);
    options.log.error(
      `hermes daemon: stopping after an ${kind}: ${describeError(error)}${stack === undefined ? '' : `\n${stack}`}`,
    );
    if (crashed) return;
    crashed = true;
    const timer = setTimeout(() => exit(1), STOP_MS);
    void options
      .stop()
      .catch(() => {})
      .finally(() => {
        clearTimeout(timer);
        exit(1);
      });
  };
  const subscribe =
    options.crashes ??
    ((listener) => {
      process.on('uncaughtException', (error) => listener('uncaught exception', error));
      process.on('unhandledRejection', (reason) => listener('unhandled rejection', reason));
    });
  subscribe(onCrash);
}
