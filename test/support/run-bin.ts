import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = fileURLToPath(new URL('../..', import.meta.url));
export const bin = join(root, 'bin/hermes.js');
/** The command-line tests run the built bin, as users and agents do. */
export const built = existsSync(join(root, 'dist/cli/main.js'));

export interface Answer {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * A program run to its end as a child process: `stdin` written and closed, the environment
 * `env` on top of this one's (a key set to `undefined` is left out), its exit code and output.
 */
export function runProcess(
  command: string,
  args: string[],
  options: {
    env?: Record<string, string | undefined>;
    cwd?: string;
    stdin?: string;
    timeout?: number;
  } = {},
): Promise<Answer> {
  return new Promise((resolve) => {
    const env = { ...process.env, ...options.env };
    for (const [key, value] of Object.entries(env)) if (value === undefined) delete env[key];
    execFile(
      command,
      args,
      {
        env,
        ...(options.cwd ? { cwd: options.cwd } : {}),
        ...(options.timeout ? { timeout: options.timeout } : {}),
      },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code) : 0, stdout, stderr }),
    ).stdin?.end(options.stdin ?? '');
  });
}

/** The bin run as a child process, with `stdin` written to it. */
export function runBin(
  args: string[],
  env: Record<string, string | undefined> = {},
  stdin = '',
): Promise<Answer> {
  return runProcess(process.execPath, [bin, ...args], { env, stdin });
}

/** The bin as an agent runs a command hook: the event's JSON on stdin. */
export function runHook(
  agent: string,
  home: string,
  event: unknown,
  extraEnv: Record<string, string> = {},
  options: { timeout?: number } = {},
): Promise<Answer> {
  return runProcess(process.execPath, [bin, 'hook', agent], {
    // The agent's own report of the session's folder only when a test gives it (session-root.ts).
    env: { HERMES_HOME: home, HOME: home, CLAUDE_PROJECT_DIR: undefined, ...extraEnv },
    stdin: typeof event === 'string' ? event : JSON.stringify(event),
    ...options,
  });
}

/**
 * `hermes` at `binFile` (an installed copy's bin) in a child process, for the project, with its
 * own $HERMES_HOME and $HOME, the project trusted for this run.
 */
export function hermesAt(
  binFile: string,
  home: string,
  project: string,
  ...args: string[]
): Promise<Answer> {
  return runProcess(process.execPath, [binFile, ...args, '--cwd', project], {
    env: { HERMES_HOME: home, HOME: home, HERMES_TRUST_PROJECT: '1' },
  });
}
