import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { hermesHome } from '../../../src/config/locations.js';
import { daemonKey, daemonSocketPath } from '../../../src/host/daemon/protocol.js';
import { tree, tsExtension } from '../../support/fixtures.js';
import { type Answer, bin, root, runBin, runProcess } from '../../support/run-bin.js';
import { bash, socketFolder, withEnv } from './daemon-support.js';

// What the tests of the hook path under faults (a stopped daemon, a non-socket at its path, many
// hooks with none) share: a home whose one extension records every load and every decision with
// the id of the process that made it, and a preload that records every Node process started.

const version = (
  JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }
).version;

/** The tool call's `command` for which the recorder takes `SLOW_MS` before it decides. */
export const SLOW = 'slow';
export const SLOW_MS = 4_000;

export interface Recorded {
  home: string;
  project: string;
  /** The environment of every hook and daemon of the test (the daemon's key is made of it). */
  env: Record<string, string | undefined>;
  /** The socket the hooks' daemon listens at (protocol.ts: named after `env`). */
  socket: string;
  /** One line per decision: the pid of the process that decided it, and the call's command. */
  decisions(): Array<{ pid: number; command: string }>;
  /** The pid of every process that loaded the recorder (once per runtime loaded). */
  loads(): number[];
  /** Every `hermes daemon run` started with `env`, in order. */
  daemonStarts(): number[];
}

export function recorded(extra: Record<string, string> = {}): Recorded {
  const work = tree({
    'record.cjs': `if (process.argv.slice(2).join(' ').endsWith('daemon run')) require('node:fs').appendFileSync(__dirname + '/daemons.log', process.pid + '\\n');`,
  });
  const decided = join(work, 'decisions.log');
  const loaded = join(work, 'loads.log');
  // Refuses every call, naming it, after SLOW_MS for SLOW: its answer is never the framework's
  // own refusal (a late or failed answer), so whose answer a hook printed can be told.
  const recorder = tsExtension(
    'recorder',
    `appendFileSync(${JSON.stringify(loaded)}, process.pid + '\\n');
    hermes.on('intercept_tool_call', async (e) => {
      const command = String(e.toolArgs.command);
      if (command === ${JSON.stringify(SLOW)}) await new Promise((r) => setTimeout(r, ${SLOW_MS}));
      appendFileSync(${JSON.stringify(decided)}, process.pid + ' ' + command + '\\n');
      return block('decided by the recorder: ' + command);
    }, { timeoutMs: ${SLOW_MS + 3_000} });`,
    `import { appendFileSync } from 'node:fs';`,
  );
  const home = tree({ 'extensions/recorder.ts': recorder });
  const project = tree({ '.git/HEAD': '' });
  const env: Record<string, string | undefined> = {
    // The tests' own HERMES_DAEMON=0 (vitest.config.ts) is not the hooks'.
    HERMES_DAEMON: undefined,
    HERMES_HOME: home,
    HOME: home,
    HERMES_DAEMON_DIR: socketFolder(),
    NODE_OPTIONS: `--require ${join(work, 'record.cjs')}`,
    ...extra,
  };
  const full = withEnv(env);
  const lines = (file: string) =>
    existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : [];
  return {
    home,
    project,
    env,
    socket: daemonSocketPath(daemonKey(hermesHome(home), version, full), full),
    decisions: () =>
      lines(decided).map((line) => {
        const [pid, command] = line.split(' ');
        return { pid: Number(pid), command: command ?? '' };
      }),
    loads: () => lines(loaded).map(Number),
    daemonStarts: () => lines(join(work, 'daemons.log')).map(Number),
  };
}

/** `hermes hook claude-code` as the agent runs it, for a Bash call of `command` in `session`. */
export function hook(r: Recorded, session: string, command: string): Promise<Answer> {
  return runProcess(process.execPath, [bin, 'hook', 'claude-code'], {
    env: r.env,
    stdin: JSON.stringify(bash(r.project, session, command)),
  });
}

/** What the recorder answers for a call whose command is `command`. */
export const decidedBy = (command: string) => `decided by the recorder: ${command}`;

/** Polls `read` until it returns something other than undefined, for at most `timeoutMs`. */
export async function eventually<T>(
  read: () => T | undefined,
  timeoutMs = 20_000,
): Promise<T | undefined> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = read();
    if (value !== undefined || Date.now() > until) return value;
    await new Promise((tick) => setTimeout(tick, 25));
  }
}

/** Stops the daemon of `env` that a hook started (the tests' afterEach knows only their own). */
export async function stopDaemon(env: Record<string, string | undefined>): Promise<void> {
  await runBin(['daemon', 'stop'], env);
}
