import type { Command } from 'commander';
import type { Io } from './io.js';

/** What main.ts gives the files that register a group of its commands. */
export interface Registering {
  /** Wraps a command's action so that main keeps its exit code. */
  // biome-ignore lint/suspicious/noExplicitAny: commander's action arguments are untyped
  run: <A extends any[]>(command: (...a: A) => Promise<number>) => (...a: A) => Promise<void>;
  /** Adds `--cwd <dir>`. */
  withCwd: (command: Command) => Command;
  io: Io;
}
