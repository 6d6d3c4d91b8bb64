import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { expect } from 'vitest';
import { DAEMON_ACK, DAEMON_PROTOCOL } from '../../../src/host/daemon/protocol.js';
import { type Answer, bin, preToolUse, runProcess } from '../../support/run-bin.js';

/** Daemons started by a test: stopped (and waited for) after it. */
const started: ChildProcess[] = [];
const folders: string[] = [];
/** Each daemon's environment, by socket: what a hook that reaches it has (askHook sends it). */
const environments = new Map<string, Record<string, string>>();

/**
 * Stops the daemons a test started and removes its socket folders; after each test
 * (test/support/each-file.ts).
 */
export async function stopDaemons(): Promise<void> {
  await Promise.all(started.splice(0).map((child) => ended(child, 'SIGTERM')));
  for (const dir of folders.splice(0)) rmSync(dir, { recursive: true, force: true });
}

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

/**
 * `hermes daemon run` as the client spawns it, resolved once it prints `ready <socket>`: with
 * this process's environment and `env` on top (a variable set to undefined is left out).
 */
export function startDaemon(env: Record<string, string | undefined>): Promise<RunningDaemon> {
  const full = withEnv(env);
  const child = spawn(process.execPath, [bin, 'daemon', 'run'], {
    env: full,
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
      if (ready?.[1]) {
        environments.set(ready[1], full);
        resolve({ child, socket: ready[1], stderr: () => stderr });
      }
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

/**
 * One line to the socket, the answer line back (parsed), after the daemon's acknowledgement: a
 * client of the protocol, no more. Its side stays open until the answer, as the hook client's
 * does (a request whose client has ended its side is not started).
 */
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
      connection.destroy();
      const [ack, answer, ...more] = text.split('\n');
      try {
        if (ack !== DAEMON_ACK || more.some(Boolean)) throw new Error('not the ack and one line');
        resolve(JSON.parse(answer ?? ''));
      } catch (error) {
        reject(new Error(`not the ack and one JSON line: ${JSON.stringify(text)} (${error})`));
      }
    });
    connection.write(`${line}\n`);
  });
}

/** `base` (this process's environment) with `env` on top; a variable set to undefined is left out. */
export function withEnv(
  env: Record<string, string | undefined>,
  base: Record<string, string | undefined> = process.env,
): Record<string, string> {
  const full: Record<string, string | undefined> = { ...base, ...env };
  for (const [name, value] of Object.entries(full)) if (value === undefined) delete full[name];
  return full as Record<string, string>;
}

/**
 * A hook event as the client sends it: from a hook whose environment is the daemon's, with
 * `env` on top.
 */
export function askHook(
  socket: string,
  agent: 'claude-code' | 'codex',
  event: unknown,
  cwd = '/',
  env: Record<string, string | undefined> = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  const line = JSON.stringify({
    v: DAEMON_PROTOCOL,
    agent,
    stdin: JSON.stringify(event),
    cwd,
    env: withEnv(env, environments.get(socket)),
  });
  return ask(socket, line).then((a) => ({
    code: a.exitCode as number,
    stdout: a.stdout as string,
    stderr: a.stderr as string,
  }));
}

/**
 * `hermes hook <agent>` as the agent runs it, with the environment of the daemon at `socket` and
 * `env` on top: the hook client, which asks that daemon when `env` keys no other one
 * (protocol.ts `daemonKey`), and answers in-process when it does not answer.
 */
export function hookClient(
  socket: string,
  agent: 'claude-code' | 'codex',
  event: unknown,
  env: Record<string, string | undefined> = {},
): Promise<Answer> {
  return runProcess(process.execPath, [bin, 'hook', agent], {
    env: { ...environments.get(socket), HERMES_DAEMON: undefined, ...env },
    stdin: JSON.stringify(event),
  });
}

/** The same event answered by a fresh hook process, in-process (HERMES_DAEMON=0). */
export function freshHook(
  socket: string,
  agent: 'claude-code' | 'codex',
  event: unknown,
  env: Record<string, string | undefined> = {},
): Promise<Answer> {
  return hookClient(socket, agent, event, { ...env, HERMES_DAEMON: '0' });
}

/** How many events the daemon at `socket` has answered. */
export async function answeredBy(socket: string): Promise<number> {
  const status = await ask(socket, `{"v":${DAEMON_PROTOCOL},"control":"status"}`);
  return status.requests as number;
}

/**
 * One event (a tool call, a prompt: anything with a `session_id`) through the hook client with
 * `env` on top of the daemon's, which the daemon must answer (its count goes up), and the same
 * event of a twin session answered by a fresh hook process: the answers must be equal.
 */
export async function answeredAlike(
  socket: string,
  event: { session_id: string },
  env: Record<string, string | undefined> = {},
): Promise<Answer> {
  const before = await answeredBy(socket);
  const daemonSession = { ...event, session_id: `${event.session_id}-d` };
  const viaDaemon = await hookClient(socket, 'claude-code', daemonSession, env);
  expect(await answeredBy(socket)).toBe(before + 1);
  const freshSession = { ...event, session_id: `${event.session_id}-f` };
  expect(viaDaemon).toEqual(await freshHook(socket, 'claude-code', freshSession, env));
  return viaDaemon;
}

/** A Claude Code PreToolUse event for a Bash call, as the agent writes it on the hook's stdin. */
export const bash = (cwd: string, session = 's1', command = 'ls') =>
  preToolUse(session, cwd, 'Bash', { command, description: 'list' });

/** The reason of a Claude Code answer's decision; undefined for an empty answer (allowed). */
export const reasonOf = (answer: { stdout: string }) =>
  answer.stdout === ''
    ? undefined
    : JSON.parse(answer.stdout).hookSpecificOutput?.permissionDecisionReason;
