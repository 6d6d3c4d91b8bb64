import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { afterEach } from 'vitest';
import { bin } from './run-bin.js';

const children: ChildProcessWithoutNullStreams[] = [];
// A test that fails half-way leaves no server behind.
afterEach(() => {
  for (const child of children.splice(0)) child.kill();
});

/**
 * The real bridge process (`hermes extensions serve --stdio`) with `home` as its HERMES_HOME:
 * `next()` reads its answers one line at a time, `stderr()` what it has written there so far,
 * `exited` its exit code once it ends.
 */
export function bridgeProcess(home: string, cwd: string, flags: string[] = []) {
  const child = spawn(
    process.execPath,
    [bin, 'extensions', 'serve', '--stdio', '--cwd', cwd, ...flags],
    { env: { ...process.env, HERMES_HOME: home } },
  ) as ChildProcessWithoutNullStreams;
  children.push(child);
  const answers: Array<Record<string, unknown>> = [];
  const waiting: Array<() => void> = [];
  createInterface({ input: child.stdout }).on('line', (line) => {
    answers.push(JSON.parse(line));
    waiting.shift()?.();
  });
  let stderr = '';
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  const send = (message: unknown) =>
    child.stdin.write(`${typeof message === 'string' ? message : JSON.stringify(message)}\n`);
  const next = async () => {
    if (answers.length === 0) await new Promise<void>((resolve) => waiting.push(resolve));
    return answers.shift() as Record<string, unknown>;
  };
  const call = async (id: number, method: string, params: unknown) => {
    send({ jsonrpc: '2.0', id, method, params });
    return next();
  };
  return { child, send, next, call, exited, stderr: () => stderr };
}
