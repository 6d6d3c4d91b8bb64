import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { wrappedHookCommand } from '../../../src/host/command-hook/hook-wrapper.js';
import { tree } from '../../support/fixtures.js';
import { type Answer, bin, root, runProcess } from '../../support/run-bin.js';
import { bash, withEnv } from './daemon-support.js';
import { type Recorded, recorded } from './fault-support.js';

// What the tests of the Perl hook client (perl-client.test.ts, perl-client-faults.test.ts) share:
// the installed program run with a package whose `bin/hermes.js` writes a line for every Node it
// starts (and the two variables by which the client hands a call over) before it runs the real
// one, and stand-in daemons.

export const client = join(root, 'dist', 'hook-client.pl');
export const version = (
  JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }
).version;
export const perl = existsSync('/usr/bin/perl');

const servers: Server[] = [];

/** Closes the stand-in daemons of a test (after each). */
export async function closeServers(): Promise<void> {
  await Promise.all(servers.splice(0).map((server) => new Promise((done) => server.close(done))));
}

export interface Setup {
  r: Recorded;
  /** The hook's environment: the recorder's, without its NODE_OPTIONS (the program unsets it). */
  env: Record<string, string | undefined>;
  /** One line per Node the program started: `HERMES_DAEMON HERMES_HOOK_DEADLINE_MS`. */
  nodes(): string[];
  /** The pid of each `hermes daemon run` of the package, whoever started it. */
  daemons(): number[];
  /**
   * A Bash call of `command` through the installed program of `agent` (the user form), as the
   * event `name` (PreToolUse, or PostToolUse with its result).
   */
  call(
    command: string,
    extra?: Record<string, string | undefined>,
    agent?: string,
    name?: string,
  ): Promise<Answer>;
  /** `event` (written as it is) through the installed program of Claude Code. */
  send(event: string, extra?: Record<string, string | undefined>): Promise<Answer>;
}

export function setup(extra: Record<string, string> = {}): Setup {
  const r = recorded(extra);
  const env: Record<string, string | undefined> = { ...r.env, NODE_OPTIONS: undefined };
  const log = join(r.home, 'nodes.log');
  const daemons = join(r.home, 'daemons.log');
  const pkg = tree({
    // A Node that is to answer in-process fails once the test has made `fail` (a broken install).
    // A daemon the client starts is written to another log, with its pid.
    'bin/hermes.js': `if (process.env.HERMES_DAEMON === '0' && require('node:fs').existsSync(${JSON.stringify(join(r.home, 'fail'))})) process.exit(1);\nif (process.argv[2] === 'daemon') require('node:fs').appendFileSync(${JSON.stringify(daemons)}, process.pid + '\\n');\nelse require('node:fs').appendFileSync(${JSON.stringify(log)}, (process.env.HERMES_DAEMON ?? '-') + ' ' + (process.env.HERMES_HOOK_DEADLINE_MS ?? '-') + '\\n');\nrequire(${JSON.stringify(bin)});\n`,
  });
  mkdirSync(join(pkg, 'dist'));
  symlinkSync(client, join(pkg, 'dist', 'hook-client.pl'));
  const pins = { HERMES_HOME: r.home, HERMES_DAEMON_DIR: env.HERMES_DAEMON_DIR as string };
  const program = (agent: string, stdin: string, more: Record<string, string | undefined>) =>
    runProcess(
      '/bin/sh',
      [
        '-c',
        wrappedHookCommand(
          agent,
          [process.execPath, join(pkg, 'bin', 'hermes.js'), 'hook', agent],
          pins,
        ),
      ],
      { env: { ...env, ...more }, cwd: r.project, stdin },
    );
  const call = (
    command: string,
    more: Record<string, string | undefined> = {},
    agent = 'claude-code',
    name = 'PreToolUse',
  ) =>
    program(
      agent,
      JSON.stringify(
        name === 'PreToolUse'
          ? bash(r.project, 's1', command)
          : { ...bash(r.project, 's1', command), hook_event_name: name, tool_response: {} },
      ),
      more,
    );
  const send = (event: string, more: Record<string, string | undefined> = {}) =>
    program('claude-code', event, more);
  const lines = (file: string) =>
    existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : [];
  return {
    r,
    env,
    nodes: () => lines(log),
    daemons: () => lines(daemons).map(Number),
    call,
    send,
  };
}

/** The socket the Perl client asks (its `--socket`) with this process's environment and `env` on top. */
export function perlSocket(env: Record<string, string | undefined>): string {
  return execFileSync(
    '/usr/bin/perl',
    ['-T', '-C0', '--', client, 'claude-code', process.execPath, '--socket'],
    {
      env: withEnv(env),
      encoding: 'utf8',
    },
  ).trim();
}

/** A stand-in daemon at `socket` that does `serve` with each connection's first line. */
export function fake(
  socket: string,
  serve: (connection: Socket, line: string) => void,
): { lines: string[] } {
  const lines: string[] = [];
  const server = createServer((connection) => {
    let text = '';
    connection.on('error', () => {});
    connection.on('data', (chunk) => {
      text += chunk;
      const end = text.indexOf('\n');
      if (end >= 0 && lines.length < 100) {
        const line = text.slice(0, end);
        text = text.slice(end + 1);
        lines.push(line);
        serve(connection, line);
      }
    });
  });
  server.listen(socket);
  servers.push(server);
  return { lines };
}

export const ACK = '{"v":3,"ack":true}\n';
