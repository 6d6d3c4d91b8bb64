import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { wrappedHookCommand } from '../../../src/host/command-hook/hook-wrapper.js';
import { tree } from '../../support/fixtures.js';
import { bin, built, preToolUse, runProcess } from '../../support/run-bin.js';
import { socketFolder, startDaemon, stopDaemons } from './daemon-support.js';

/**
 * The installed hook starts hermes with the agent's `NODE_EXTRA_CA_CERTS` moved aside, so that
 * Node does not load those certificates for a call the daemon answers, and bin/hermes.js puts it
 * back (docs/command-hooks.md, "The certificates a hook does not load"). Node says on stderr when
 * it loads them and the file is not there, which tells here which process loaded them. An
 * extension blocks every call with what it sees of the variable: the daemon's answer and the
 * in-process one must see the agent's own value, and only under its own name.
 */
const SEES = `import { block, defineExtension } from 'hermes-extensions';
export default defineExtension({
  name: 'sees-certificates',
  setup(hermes) {
    hermes.on('intercept_tool_call', () =>
      block('certificates ' + (process.env.NODE_EXTRA_CA_CERTS ?? 'none') + ', moved ' + (process.env.HERMES_NODE_EXTRA_CA_CERTS ?? 'none')),
    );
  },
});
`;
const LOADED = /Ignoring extra certs from/g;
/**
 * Node 20 loads them as it starts; Node 22 and later at the first TLS connection, which no
 * answer here makes: there the in-process Node is told apart by the variable alone.
 */
const loadsAtStart = (file: string) =>
  new RegExp(LOADED.source).test(
    spawnSync(process.execPath, ['-e', '0'], {
      env: { ...process.env, NODE_EXTRA_CA_CERTS: file },
      encoding: 'utf8',
    }).stderr,
  );

let home: string;
let project: string;
let certificates: string;

beforeAll(() => {
  expect(built).toBe(true);
});

afterEach(stopDaemons);

function setup(daemonDir: string, extension = SEES) {
  home = tree({ 'config.yaml': '', 'extensions/sees-certificates/index.mjs': extension });
  project = tree({ '.git/HEAD': '' });
  certificates = join(home, 'no-such-bundle.pem');
  const pins = { HERMES_HOME: home, HERMES_DAEMON_DIR: daemonDir };
  /** The event through the installed program (the user form), as Claude Code runs it. */
  const call = (env: Record<string, string | undefined>) =>
    runProcess(
      '/bin/sh',
      [
        '-c',
        wrappedHookCommand('claude-code', [process.execPath, bin, 'hook', 'claude-code'], pins),
      ],
      {
        env: { HOME: home, HERMES_DAEMON: undefined, NODE_OPTIONS: undefined, ...env },
        cwd: project,
        stdin: JSON.stringify(preToolUse('s1', project, 'Bash', { command: 'ls' }, 'toolu_1')),
      },
    );
  return { pins, call };
}

const reason = (stdout: string): string =>
  JSON.parse(stdout).hookSpecificOutput.permissionDecisionReason;

describe.runIf(built)('the certificates a hook does not load', () => {
  it('a call the daemon answers: the hook’s Node does not load them, the extensions see them', async () => {
    const { pins, call } = setup(socketFolder());
    // The daemon the client reaches: keyed, and started, with the agent's value.
    await startDaemon({
      ...pins,
      HOME: home,
      HERMES_DAEMON: undefined,
      NODE_EXTRA_CA_CERTS: certificates,
    });
    const answer = await call({ NODE_EXTRA_CA_CERTS: certificates });
    expect(answer.code, answer.stderr).toBe(0);
    expect(reason(answer.stdout)).toContain(`certificates ${certificates}, moved none`);
    expect(answer.stderr.match(LOADED)).toBeNull();
  });

  it('a call answered in-process: in a Node that loads them, once, with the same answer', async () => {
    // A daemon folder open to others is never used: the event is answered in-process.
    const open = mkdtempSync('/tmp/hd-open-');
    chmodSync(open, 0o777);
    const { call } = setup(open);
    const answer = await call({ NODE_EXTRA_CA_CERTS: certificates });
    expect(answer.code, answer.stderr).toBe(0);
    expect(reason(answer.stdout)).toContain(`certificates ${certificates}, moved none`);
    expect(answer.stderr.match(LOADED)?.length ?? 0).toBe(loadsAtStart(certificates) ? 1 : 0);
  });

  it('the daemon turned off: answered in a Node that loads them, once', async () => {
    const { call } = setup(socketFolder());
    const answer = await call({ NODE_EXTRA_CA_CERTS: certificates, HERMES_DAEMON: '0' });
    expect(answer.code, answer.stderr).toBe(0);
    expect(reason(answer.stdout)).toContain(`certificates ${certificates}, moved none`);
    expect(answer.stderr.match(LOADED)?.length ?? 0).toBe(loadsAtStart(certificates) ? 1 : 0);
  });

  it('an in-process answer that never comes is killed past the deadline, and the call refused', async () => {
    const open = mkdtempSync('/tmp/hd-open-');
    chmodSync(open, 0o777);
    // Loading never ends and never yields: only the kill ends the child that answers in-process.
    const { call } = setup(open, 'for (;;) {}\n');
    const answer = await call({
      NODE_EXTRA_CA_CERTS: certificates,
      HERMES_HOOK_DEADLINE_MS: '1500',
    });
    expect(answer.code, answer.stderr).toBe(0);
    expect(JSON.parse(answer.stdout)).toMatchObject({
      hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny' },
    });
    expect(answer.stderr).toContain('the in-process answer could not be made');
  });

  it('a value under the moved name from the environment never arrives', async () => {
    const open = mkdtempSync('/tmp/hd-open-');
    chmodSync(open, 0o777);
    const { call } = setup(open);
    const answer = await call({
      NODE_EXTRA_CA_CERTS: undefined,
      HERMES_NODE_EXTRA_CA_CERTS: join(home, 'the-projects-own.pem'),
    });
    expect(answer.code, answer.stderr).toBe(0);
    expect(reason(answer.stdout)).toContain('certificates none, moved none');
    expect(answer.stderr.match(LOADED)).toBeNull();
  });
});
