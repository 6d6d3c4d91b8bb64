import { AsyncLocalStorage } from 'node:async_hooks';
import type { Logger } from '../../log/logger.js';

/** What was logged while one event was answered: it goes on that answer's stderr. */
interface EventLog {
  lines: string;
  open: boolean;
}

/**
 * A runtime's logger in the hook daemon: a line logged while an event is answered goes to that
 * answer's stderr, as the hook process writes it to its own; anything else to `elsewhere`.
 */
export function eventLogger(elsewhere: Logger): {
  logger: Logger;
  /** Runs `answer` collecting what is logged meanwhile; `lines` is that, one per line. */
  collect<T>(answer: () => Promise<T>): Promise<{ value: T; lines: string }>;
  /** Adds `text` to the log of the event being answered; false when none is. */
  append(text: string): boolean;
} {
  const storage = new AsyncLocalStorage<EventLog>();
  const append = (text: string) => {
    const log = storage.getStore();
    if (!log?.open) return false;
    log.lines += text;
    return true;
  };
  const route = (level: keyof Logger) => (message: string) => {
    if (level === 'debug' && !process.env.HERMES_DEBUG) return;
    if (!append(`${message}\n`)) elsewhere[level](message);
  };
  return {
    logger: {
      debug: route('debug'),
      info: route('info'),
      warn: route('warn'),
      error: route('error'),
    },
    async collect(answer) {
      const log: EventLog = { lines: '', open: true };
      try {
        const value = await storage.run(log, answer);
        return { value, lines: log.lines };
      } finally {
        log.open = false;
      }
    },
    append,
  };
}

/**
 * What an extension writes to the thread's stderr itself (`console.error`, `console.warn`) while
 * an event is answered goes on that answer's stderr too, as it would in the hook process; the
 * rest to the daemon's stderr.
 */
export function stderrToEvents(append: (text: string) => boolean): void {
  const stderr = process.stderr;
  const write = stderr.write.bind(stderr) as (...args: unknown[]) => boolean;
  stderr.write = ((chunk: unknown, ...rest: unknown[]) => {
    const text =
      typeof chunk === 'string' ? chunk : Buffer.from(chunk as Uint8Array).toString('utf8');
    if (!append(text)) return write(chunk, ...rest);
    const done = rest.find((arg) => typeof arg === 'function') as (() => void) | undefined;
    if (done) queueMicrotask(done);
    return true;
  }) as typeof stderr.write;
}
