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
} {
  const storage = new AsyncLocalStorage<EventLog>();
  const route = (level: keyof Logger) => (message: string) => {
    if (level === 'debug' && !process.env.HERMES_DEBUG) return;
    const log = storage.getStore();
    if (log?.open) log.lines += `${message}\n`;
    else elsewhere[level](message);
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
  };
}
