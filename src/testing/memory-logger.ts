import type { Logger } from '../log/logger.js';

export interface MemoryLogger extends Logger {
  readonly lines: Array<{ level: keyof Logger; message: string }>;
}

/** A logger that keeps what it is told, for asserting on `hermes.log` output. */
export function memoryLogger(): MemoryLogger {
  const lines: MemoryLogger['lines'] = [];
  const at = (level: keyof Logger) => (message: string) => {
    lines.push({ level, message });
  };
  return { lines, debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}
