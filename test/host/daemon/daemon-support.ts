import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { afterEach } from 'vitest';
import { bin } from '../../support/run-bin.js';

/** Daemons started by a test: stopped (and waited for) after it. */
const started: ChildProcess[] = [];
const folders: string[] = [];

afterEach(async () => {
  await Promise.all(started.splice(0).map((child) => ended(child, 'SIGTERM')));
  for (const dir of folders.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A short folder for the sockets (a socket path must stay under about 100 bytes), mode 700. */
export function socketFolder(): string {
  const dir = mkdtempSync('/tmp/hd-');
  folders.push(dir);
  return dir;
}

export interface RunningDaemon {
  child: ChildProcess;
  socket: string;
  stderr: () => string;
}

/** `hermes daemon run` as the client spawns it, resolved once it prints `ready <socket>`. */
export function startDaemon(env: Record<string, string>): Promise<RunningDaemon> {
  const child = spawn(process.execPath, [bin, 'daemon', 'run'], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  started.push(child);
  let stdout = '';
  let stderr = '';
  child.stderr?.on('data', (chunk) => {
    stderr += chunk;
  });
  return new Promise((resolve, reject) => {
    child.stdout?.on('data', (chunk) => {
      stdout += chunk;
      const ready = /^ready (.+)\n/.exec(stdout);
      if (ready?.[1]) resolve({ child, socket: ready[1], stderr: () => stderr });
    });
    child.once('exit', (code) =>
      reject(new Error(`the daemon exited (${code}) before it was ready: ${stdout}${stderr}`)),
    );
  });
}

/** Resolves with the exit code once `child` has exited (after sending `signal`, if given). */
export function ended(child: ChildProcess, signal?: NodeJS.Signals): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => {
    child.once('exit', (code) => resolve(code));
    if (signal) child.kill(signal);
  });
}

/** One line to the socket, the answer line back (parsed): a client of the protocol, no more. */
export function ask(socket: string, line: string): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const connection = connect(socket);
    let text = '';
    connection.setEncoding('utf8');
    connection.on('data', (chunk: string) => {
      text += chunk;
    });
    connection.on('error', reject);
    connection.on('end', () => {
      try {
        resolve(JSON.parse(text));
      } catch (error) {
        reject(new Error(`not one JSON line: ${JSON.stringify(text)} (${error})`));
      }
    });
    connection.end(`${line}\n`);
  });
}

/** A hook event as the client sends it. */
export function askHook(
  socket: string,
  agent: 'claude-code' | 'codex',
  event: unknown,
  cwd = '/',
): Promise<{ code: number; stdout: string; stderr: string }> {
  const line = JSON.stringify({ v: 1, agent, stdin: JSON.stringify(event), cwd });
  return ask(socket, line).then((a) => ({
    code: a.exitCode as number,
    stdout: a.stdout as string,
    stderr: a.stderr as string,
  }));
}
