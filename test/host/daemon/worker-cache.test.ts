import { type ChildProcess, spawn } from 'node:child_process';
import { cpSync, existsSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { tree } from '../../support/fixtures.js';
import { built, preToolUse, root, WORKFLOW_GUARD } from '../../support/run-bin.js';
import { ask, askHook, ended, socketFolder, withEnv } from './daemon-support.js';

/**
 * The daemon's runtime threads compiled from V8's code cache of the worker's bundle
 * (loader/daemon-worker.cjs, docs/command-hooks.md "Code caches"): made by a thread once it has
 * answered an event (never by one that answered none: its cache would hold only the framework's
 * start), used by the threads after it, made again when V8 refuses it. Each test runs a copy of the package (its packages linked), whose `dist/` no other
 * test's daemon writes to.
 */
let copy: string;
const running: ChildProcess[] = [];

beforeAll(() => {
  expect(built).toBe(true);
});

afterEach(async () => {
  for (const child of running.splice(0)) await ended(child, 'SIGTERM');
});

function packageCopy(): string {
  const folder = tree({});
  for (const part of ['bin', 'loader', 'dist', 'extensions', 'package.json'])
    cpSync(join(root, part), join(folder, part), { recursive: true, filter: notCache });
  symlinkSync(join(root, 'node_modules'), join(folder, 'node_modules'));
  return folder;
}

const notCache = (path: string) => !path.endsWith('.v8cache');

const daemonEnv = (env: Record<string, string>) =>
  withEnv({ ...env, HERMES_DAEMON: undefined, NODE_OPTIONS: undefined });

/** `hermes daemon run` of the copy; resolves its socket once it listens. */
function startCopy(env: Record<string, string>): Promise<string> {
  const child = spawn(process.execPath, [join(copy, 'bin', 'hermes.js'), 'daemon', 'run'], {
    env: daemonEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.push(child);
  let out = '';
  return new Promise((resolve, reject) => {
    child.stdout?.on('data', (chunk) => {
      out += chunk;
      const ready = /^ready (.+)\n/.exec(out);
      if (ready?.[1]) resolve(ready[1]);
    });
    child.once('exit', (code) => reject(new Error(`the daemon exited (${code}): ${out}`)));
  });
}

async function eventually<T>(look: () => T | undefined, ms = 20_000): Promise<T> {
  for (const until = Date.now() + ms; Date.now() < until; ) {
    const found = look();
    if (found !== undefined) return found;
    await new Promise((tick) => setTimeout(tick, 100));
  }
  throw new Error('not in time');
}

async function setup() {
  copy = packageCopy();
  const home = tree({ 'config.yaml': WORKFLOW_GUARD });
  const project = tree({ '.git/HEAD': '' });
  const env = { HERMES_HOME: home, HOME: home, HERMES_DAEMON_DIR: socketFolder() };
  const bundle = join(copy, 'dist', 'daemon-worker.bundle.cjs');
  const cache = join(copy, 'dist', `daemon-worker.${process.version}-${process.arch}.v8cache`);
  /** An edit before any plan, which workflow-guard refuses, answered by the copy's daemon. */
  const edit = async (socket: string, session: string) => {
    const event = preToolUse(session, project, 'Edit', {
      file_path: join(project, 'src/a.ts'),
      old_string: 'a',
      new_string: 'b',
    });
    const answer = await askHook(socket, 'claude-code', event, project, {
      ...env,
      HERMES_DAEMON: undefined,
      NODE_OPTIONS: undefined,
    });
    expect(JSON.parse(answer.stdout)).toMatchObject({
      hookSpecificOutput: { permissionDecision: 'deny' },
    });
    expect(answer.stdout, answer.stderr).toContain('workflow-guard');
  };
  const madeFrom = () => {
    const stats = statSync(bundle);
    return `${stats.size}:${stats.mtimeMs}:${stats.ino}`;
  };
  const header = () =>
    existsSync(cache) ? readFileSync(cache, 'latin1').split('\n', 1)[0] : undefined;
  const stop = async (socket: string) => {
    await ask(socket, '{"v":2,"control":"stop"}');
    await ended(running.pop() as ChildProcess);
  };
  return { env, cache, edit, madeFrom, header, stop };
}

describe.runIf(built)("the hook daemon's runtime threads' code cache", () => {
  it('is made by a thread once it has answered, and the next threads are compiled from it', async () => {
    const s = await setup();
    const first = await startCopy(s.env);
    // The daemon's first thread, started with it, has answered nothing (for longer than the
    // second a thread waits after its first answer).
    await new Promise((later) => setTimeout(later, 6_000));
    expect(s.header()).toBeUndefined();
    await s.edit(first, 'one');
    expect(await eventually(s.header)).toBe(s.madeFrom());
    await s.stop(first);
    const made = statSync(s.cache);
    const second = await startCopy(s.env);
    await s.edit(second, 'two');
    // Past the time a thread that had none makes it: untouched, it was used.
    await new Promise((later) => setTimeout(later, 3_000));
    expect(statSync(s.cache).mtimeMs).toBe(made.mtimeMs);
    expect(statSync(s.cache).ino).toBe(made.ino);
  }, 40_000);

  it('is made again when V8 refuses it, and the daemon answers as ever meanwhile', async () => {
    const s = await setup();
    const junk = `${s.madeFrom()}\nnot a code cache at all`;
    writeFileSync(s.cache, junk);
    const socket = await startCopy(s.env);
    await s.edit(socket, 'one');
    await eventually(() => (readFileSync(s.cache, 'latin1') === junk ? undefined : true));
    expect(s.header()).toBe(s.madeFrom());
  }, 40_000);
});
