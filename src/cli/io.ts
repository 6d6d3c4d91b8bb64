/** Where a command writes, and whether it may colour: only on a TTY, never with NO_COLOR. */
export interface Io {
  out(text: string): void;
  err(text: string): void;
  readonly color: boolean;
  readonly interactive: boolean;
  /** How wide the output may be: the terminal's width, 80 when it is not a terminal. */
  readonly columns?: number;
}

export function processIo(): Io {
  return {
    out: (text) => process.stdout.write(`${text}\n`),
    err: (text) => process.stderr.write(`${text}\n`),
    color: Boolean(process.stdout.isTTY) && process.env.NO_COLOR === undefined,
    interactive: Boolean(process.stdin.isTTY && process.stdout.isTTY),
    columns: (process.stdout.isTTY && process.stdout.columns) || 80,
  };
}

const CODES = { red: 31, green: 32, yellow: 33, dim: 2, bold: 1 } as const;

export function paint(io: Io, style: keyof typeof CODES, text: string): string {
  return io.color ? `\u001b[${CODES[style]}m${text}\u001b[0m` : text;
}

/** A failure a command reports with an exit code: 1 problems, 2 bad usage or unreadable config. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: 1 | 2,
  ) {
    super(message);
  }
}
