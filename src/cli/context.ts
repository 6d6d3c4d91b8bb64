import { resolve } from 'node:path';
import { hermesHome, hermesHomeProblem } from '../config/locations.js';
import type { Logger } from '../log/logger.js';
import { type LoadRuntimeOptions, loadRuntime } from '../runtime/load-runtime.js';
import type { Runtime } from '../runtime/runtime.js';
import { CliError } from './io.js';

/** What every `hermes extensions` command works from: `--cwd` and `$HERMES_HOME`. */
export interface CommandContext {
  cwd: string;
  home: string;
}

/** Refuses, in one line, a `$HERMES_HOME` that cannot be used: every command reads or writes it. */
export function commandContext(options: { cwd?: string }): CommandContext {
  const home = hermesHome();
  const problem = hermesHomeProblem(home);
  if (problem !== undefined) throw new CliError(problem, 2);
  return { cwd: resolve(options.cwd ?? process.cwd()), home };
}

/** The runtime as the agent would load it here; what extensions log is kept, not printed. */
export async function loadForCommand(
  context: CommandContext,
  options: Pick<LoadRuntimeOptions, 'onLoadError'> = {},
): Promise<{ runtime: Runtime; logs: string[] }> {
  const logs: string[] = [];
  const keep = (line: string) => {
    logs.push(line);
  };
  const logger: Logger = { debug: () => {}, info: keep, warn: keep, error: keep };
  const runtime = await loadRuntime({ cwd: context.cwd, home: context.home, logger, ...options });
  return { runtime, logs };
}
