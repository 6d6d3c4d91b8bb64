import {
  type CreateRuntimeOptions,
  createRuntime,
  defineExtension,
  type HermesApi,
  type Runtime,
  type Turn,
} from 'hermes-extensions';
import { type MemoryLogger, memoryLogger } from 'hermes-extensions/testing';

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
