import { AsyncLocalStorage } from 'node:async_hooks';
import type { Logger } from '../../log/logger.js';

/** What was logged while one event was answered: it goes on that answer's stderr. */
interface EventLog {
  lines: string;
  open: boolean;
  /** The event's session: what its work logs once it is answered is told to that session. */
  session: string | undefined;
  /** The log of the event this work runs for, when it is the runtime's own work (`asRuntime`). */
  of?: EventLog;
}

/**
 * A runtime's logger in the hook daemon: a line logged while an event is answered goes to that
 * answer's stderr, as the hook process writes it to its own; anything else to `elsewhere`, or, a
 * warning or an error, to `late` if given, with the session whose event's work logged it (known
 * from the async context that work runs in: a timer or a promise it started), or none.
 */
export function eventLogger(
  elsewhere: Logger,
  late?: (level: 'warn' | 'error', message: string, session: string | undefined) => void,
): {
  logger: Logger;
  /** Runs `answer` collecting what is logged meanwhile; `lines` is that, one per line. */
  collect<T>(answer: () => Promise<T>, session?: string): Promise<{ value: T; lines: string }>;
  /** Adds `text` to the log of the event being answered; false when none is. */
  append(text: string): boolean;
  /** Logs `message` as no answer's: to `late` if a warning or an error and given, else `elsewhere`. */
  outside(level: keyof Logger, message: string): void;
  /**
   * Runs `work` (loading the runtime) as the runtime's, not the asking event's: what it logs
   * before the event is answered still goes on the answer's stderr, but what it starts (an
   * exporter's timer, an extension's interval) logs later as no session's: told with any answer.
   */
  asRuntime<T>(work: () => T): T;
} {
  const storage = new AsyncLocalStorage<EventLog>();
  const append = (text: string) => {
    const store = storage.getStore();
    const log = store?.of ?? store;
    if (!log?.open) return false;
    log.lines += text;
    return true;
  };
  const outside = (level: keyof Logger, message: string) => {
    if (late !== undefined && (level === 'warn' || level === 'error')) {
      late(level, message, storage.getStore()?.session);
    } else {
      elsewhere[level](message);
    }
  };
  const route = (level: keyof Logger) => (message: string) => {
    if (level === 'debug' && !process.env.HERMES_DEBUG) return;
    if (!append(`${message}\n`)) outside(level, message);
  };
  return {
    logger: {
      debug: route('debug'),
      info: route('info'),
      warn: route('warn'),
      error: route('error'),
    },
    async collect(answer, session) {
      const log: EventLog = { lines: '', open: true, session };
      try {
        const value = await storage.run(log, answer);
        return { value, lines: log.lines };
      } finally {
        log.open = false;
      }
    },
    append,
    outside,
    asRuntime(work) {
      const event = storage.getStore();
      const log: EventLog = { lines: '', open: false, session: undefined, of: event?.of ?? event };
      return storage.run(log, work);
    },
  };
}

/**
 * What an extension writes to the thread's stderr itself (`console.error`, `console.warn`) while
 * an event is answered goes on that answer's stderr too, as it would in the hook process; the
 * rest is a warning logged `outside` any answer (the daemon's log, and told with a later answer,
 * as the hook process would have shown it after its own), or, without `outside`, the daemon's
 * stderr.
 */
export function stderrToEvents(
  append: (text: string) => boolean,
  outside?: (level: 'warn', message: string) => void,
): void {
  const stderr = process.stderr;
  const write = stderr.write.bind(stderr) as (...args: unknown[]) => boolean;
  stderr.write = ((chunk: unknown, ...rest: unknown[]) => {
    const text =
      typeof chunk === 'string' ? chunk : Buffer.from(chunk as Uint8Array).toString('utf8');
    if (!append(text)) {
      if (outside === undefined || text.trim() === '') return write(chunk, ...rest);
      outside('warn', text.replace(/\n$/, ''));
    }
    const done = rest.find((arg) => typeof arg === 'function') as (() => void) | undefined;
    if (done) queueMicrotask(done);
    return true;
  }) as typeof stderr.write;
}
