import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = fileURLToPath(new URL('../..', import.meta.url));
export const bin = join(root, 'bin/hermes.js');
/** The command-line tests run the built bin, as the agents do. */
export const built = existsSync(join(root, 'dist/cli/main.js'));

export interface Answer {
  code: number;
  stdout: string;
  stderr: string;
}

/** The bin run as a child process, with `stdin` written to it. */
export function runBin(args: string[], env: Record<string, string>, stdin = ''): Promise<Answer> {
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      [bin, ...args],
      { env: { ...process.env, ...env } },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code) : 0, stdout, stderr }),
    );
    child.stdin?.end(stdin);
  });
}

/** The bin as an agent runs a command hook: the event's JSON on stdin. */
export function runHook(
  agent: 'claude-code' | 'codex',
  home: string,
  event: unknown,
  extraEnv: Record<string, string> = {},
): Promise<Answer> {
  return runBin(
    ['hook', agent],
    { HERMES_HOME: home, HOME: home, ...extraEnv },
    typeof event === 'string' ? event : JSON.stringify(event),
  );
}
