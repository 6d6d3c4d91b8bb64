import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { tree, tsExtension, write } from '../../support/fixtures.js';
import { built, root, runBin } from '../../support/run-bin.js';
import { askHook, bash, socketFolder, startDaemon } from './daemon-support.js';

/**
 * A global extension whose warnings come after the answer: each waits for a file the test writes
 * in `flags` once the answer is in (`go-<session>`), so none can land in the answer itself (a
 * folder of its own: a change in the project may reload the runtime). An observer of tool
 * outcomes logs a warning, writes to stderr itself and fails (its promise rejects); its setup
 * starts a timer that warns then too, which is no session's work.
 */
const late = (flags: string) =>
  tsExtension(
    'late',
    `const when = (flag, fire) => {
      const poll = () => (existsSync(join(${JSON.stringify(flags)}, flag)) ? fire() : setTimeout(poll, 10));
      poll();
    };
    // Started by setup, so no session's work; waits on a flag in memory, since a file setup reads
    // is one the runtime depends on (a change to it reloads the runtime).
    const setupTimer = () => (globalThis.lateGo ? hermes.log.warn('setup timer warns') : setTimeout(setupTimer, 10));
    setupTimer();
    hermes.observe('post_tool_call', (e) => {
      when('go-' + e.session_id, () => { globalThis.lateGo = true; });
      when('go-' + e.session_id, () => hermes.log.warn('late warning of ' + e.session_id));
      when('go-' + e.session_id, () => console.error('console after ' + e.session_id));
      return new Promise((_, reject) =>
        when('go-' + e.session_id, () => reject(new Error('export failed for ' + e.session_id))),
      );
    });`,
    `import { existsSync } from 'node:fs';\nimport { join } from 'node:path';`,
  );

const afterTool = (project: string, session: string) => ({
  session_id: session,
  transcript_path: '/dev/null',
  cwd: project,
  permission_mode: 'default',
  hook_event_name: 'PostToolUse',
  tool_name: 'Bash',
  tool_use_id: `toolu_${session}`,
  tool_input: { command: 'ls', description: 'list' },
  tool_response: { stdout: '', stderr: '', interrupted: false },
});

const count = (text: string, part: string) => text.split(part).length - 1;

/** Waits until the log holds every one of `parts` (the test's own bound ends a wait that fails). */
async function logged(file: string, parts: string[]): Promise<string> {
  for (;;) {
    const text = existsSync(file) ? readFileSync(file, 'utf8') : '';
    if (parts.every((part) => text.includes(part))) return text;
    await sleep(20);
  }
}

describe.runIf(built)('what the hook daemon logs after an answer', () => {
  it('is in $HERMES_HOME/logs/daemon.log, and told once with the next answer of the session whose event raised it', async () => {
    const project = tree({ '.git/HEAD': '', blocker: 'a file where audit-log wants a folder' });
    const flags = tree();
    const home = tree({
      'extensions/late.ts': late(flags),
      // The audit trail cannot be written: its folder would be inside a file.
      'config.yaml': `extensions:\n  paths: [${JSON.stringify(join(root, 'extensions/audit-log'))}]\n  audit-log:\n    path: blocker/audit.jsonl\n`,
    });
    const env = { HERMES_HOME: home, HOME: home, HERMES_DAEMON_DIR: socketFolder() };
    const { socket } = await startDaemon(env);
    const log = join(home, 'logs', 'daemon.log');

    const a1 = await askHook(socket, 'claude-code', afterTool(project, 'A'));
    expect(a1.code).toBe(0);
    write(flags, { 'go-A': '' });
    const text = await logged(log, [
      'late warning of A',
      'console after A',
      'export failed for A',
      'setup timer warns',
    ]);
    // Each line stamped with the time, the daemon's pid and the level.
    expect(text).toMatch(/^\d{4}-\d\d-\d\dT[\d:.]+Z pid=\d+ warn .*late warning of A$/m);
    expect(text).toMatch(
      / pid=\d+ warn .*observer of post_tool_call failed \(.*export failed for A/,
    );
    expect(statSync(log).mode & 0o777).toBe(0o600);
    expect(statSync(join(home, 'logs')).mode & 0o777).toBe(0o700);

    const b1 = await askHook(socket, 'claude-code', bash(project, 'B'));
    const a2 = await askHook(socket, 'claude-code', bash(project, 'A'));
    const a3 = await askHook(socket, 'claude-code', bash(project, 'A'));
    const b2 = await askHook(socket, 'claude-code', bash(project, 'B'));
    for (const answer of [b1, a2, a3, b2]) expect(answer).toMatchObject({ code: 0, stdout: '' });

    // A's own: told with A's next answer, once, never to B.
    for (const line of ['late warning of A', 'console after A', 'export failed for A']) {
      expect(count(a2.stderr, line)).toBe(1);
      expect(count(a3.stderr + b1.stderr + b2.stderr, line)).toBe(0);
    }
    expect(a2.stderr).toContain(log);
    // No session's: told once, with the next answer of any session (B's came first).
    expect(count(b1.stderr, 'setup timer warns')).toBe(1);
    expect(count(a2.stderr + a3.stderr + b2.stderr, 'setup timer warns')).toBe(0);
    // The audit trail failed in A's work: on A's answer (then or the next), once, never on B's.
    const audit = 'cannot write the audit log';
    expect(count(a1.stderr + a2.stderr + a3.stderr, audit)).toBe(1);
    expect(count(b1.stderr + b2.stderr, audit)).toBe(0);
  });

  it('is told even when the runtime that logged it was replaced meanwhile', async () => {
    const project = tree({ '.git/HEAD': '' });
    const flags = tree();
    const home = tree({ 'extensions/late.ts': late(flags) });
    const env = { HERMES_HOME: home, HOME: home, HERMES_DAEMON_DIR: socketFolder() };
    const { socket } = await startDaemon(env);
    await askHook(socket, 'claude-code', afterTool(project, 'A'));
    write(flags, { 'go-A': '' });
    await logged(join(home, 'logs', 'daemon.log'), ['late warning of A']);
    // A new extension: the next event is answered by a runtime loaded afresh, in a new worker.
    write(home, { 'extensions/other.ts': tsExtension('other') });
    const a2 = await askHook(socket, 'claude-code', bash(project, 'A'));
    expect(count(a2.stderr, 'late warning of A')).toBe(1);
    const a3 = await askHook(socket, 'claude-code', bash(project, 'A'));
    expect(a3.stderr).not.toContain('late warning of A');
  });

  it('is where `hermes daemon status` points', async () => {
    const home = tree();
    const env = { HERMES_HOME: home, HOME: home, HERMES_DAEMON_DIR: socketFolder() };
    await startDaemon(env);
    const log = join(home, 'logs', 'daemon.log');
    const status = await runBin(['daemon', 'status'], env);
    expect(status.stdout).toContain(`Log: ${log}`);
    const json = JSON.parse((await runBin(['daemon', 'status', '--json'], env)).stdout);
    expect(json).toMatchObject([{ thisEnvironment: true, log }]);
    // The daemon said where it listens, in its log.
    expect(readFileSync(log, 'utf8')).toMatch(/ pid=\d+ info hermes daemon .*: listening at /);
  });
});
