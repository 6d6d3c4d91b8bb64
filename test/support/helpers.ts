import {
  type ChainOutcome,
  type CreateRuntimeOptions,
  createRuntime,
  defineExtension,
  type HermesApi,
  type Runtime,
  type Turn,
} from 'hermes-extensions';
import { type MemoryLogger, memoryLogger } from 'hermes-extensions/testing';
import { expect } from 'vitest';

/** An extension made of a setup function, for tests that need many small ones. */
export function ext(name: string, setup: (hermes: HermesApi) => void | Promise<void>) {
  return defineExtension({ name, setup });
}

export interface TestRuntime {
  runtime: Runtime;
  logger: MemoryLogger;
}

export async function runtimeOf(
  extensions: CreateRuntimeOptions['extensions'],
  options: Omit<CreateRuntimeOptions, 'extensions'> = {},
): Promise<TestRuntime> {
  const logger = memoryLogger();
  const runtime = await createRuntime({ logger, ...options, extensions });
  return { runtime, logger };
}

/** Runs `fn` inside a turn of a fresh session and returns what it returns. */
export function inTurn<T>(runtime: Runtime, fn: (turn: Turn) => T | Promise<T>): Promise<T> {
  return runtime.runTurn({ sessionId: `session-${Math.random()}` }, fn);
}

export const write = (path = 'src/a.ts') => ({ toolName: 'write', toolArgs: { path } });

/** The outcome, which must be a block: only then does it have a `message` and a `blockedBy`. */
export function blockedOutcome<O extends ChainOutcome<unknown>>(outcome: O) {
  if (!outcome.blocked) expect.fail(`expected a block, got ${JSON.stringify(outcome)}`);
  return outcome as Extract<O, { blocked: true }>;
}
