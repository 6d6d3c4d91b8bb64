/** Where the runtime and extensions write what an operator should see. */
export interface Logger {
  debug(message: string): void;
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

/**
 * The default sink: stderr, so it never mixes with a host's or the CLI's stdout. Debug lines only
 * with `HERMES_DEBUG` set.
 */
export const stderrLogger: Logger = {
  debug: (message) => {
    if (process.env.HERMES_DEBUG) process.stderr.write(`${message}\n`);
  },
  info: (message) => process.stderr.write(`${message}\n`),
  warn: (message) => process.stderr.write(`${message}\n`),
  error: (message) => process.stderr.write(`${message}\n`),
};

/** A logger that prefixes every line with the extension it speaks for. */
export function scopedLogger(base: Logger, scope: string): Logger {
  const prefix = `[hermes:${scope}] `;
  return {
    debug: (message) => base.debug(prefix + message),
    info: (message) => base.info(prefix + message),
    warn: (message) => base.warn(prefix + message),
    error: (message) => base.error(prefix + message),
  };
}
