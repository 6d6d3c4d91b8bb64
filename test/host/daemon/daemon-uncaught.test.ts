import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tree, tsExtension } from '../../support/fixtures.js';
import { built } from '../../support/run-bin.js';
import {
  answeredBy,
  askHook,
  bash,
  hookClient,
  reasonOf,
  socketFolder,
  startDaemon,
} from './daemon-support.js';

/**
 * A global extension that, for the shell command `boom`, starts a timer that throws and then waits
 * forever; for `reject`, leaves a promise rejected and unawaited and waits forever; for `exit`,
 * calls process.exit(0) in a timer and waits forever; for
 * `wait <file>`, refuses once the file exists; for `later <file>`, refuses at once and throws
 * in a timer once the file exists; refuses `forbidden`; lets everything else run.
 */
const bomb = tsExtension(
  'bomb',
  `hermes.on('intercept_tool_call', (e) => {
     const command = String(e.toolArgs.command);
     if (command === 'boom') {
       setTimeout(() => { throw new Error('boom in a timer'); }, 0);
       return new Promise(() => {});
     }
     if (command === 'reject') {
       Promise.reject(new Error('boom unawaited'));
       return new Promise(() => {});
     }
     if (command === 'exit') {
       setTimeout(() => process.exit(0), 0);
       return new Promise(() => {});
     }
     if (command === 'forbidden') return block('forbidden by bomb');
     if (command.startsWith('later ')) {
       const poll = setInterval(() => {
         if (!existsSync(command.slice(6))) return;
         clearInterval(poll);
         throw new Error('boom after the answer');
       }, 20);
       return block('answered first');
     }
     if (command.startsWith('wait ')) {
       return new Promise((resolve) => {
         const poll = setInterval(() => {
           if (!existsSync(command.slice(5))) return;
           clearInterval(poll);
           resolve(block('waited'));
         }, 20);
       });
     }
     return undefined;
   }, { timeoutMs: Infinity });`,
  "import { existsSync } from 'node:fs';",
);

function setup() {
  const home = tree({ 'config.yaml': 'extensions: {}\n', 'extensions/bomb.ts': bomb });
  const env = {
    HERMES_HOME: home,
    HOME: home,
    HERMES_DAEMON: undefined,
    HERMES_DAEMON_DIR: socketFolder(),
  };
  return { home, env, project: () => tree({ '.git/HEAD': '' }) };
}

describe.runIf(built)('the hook daemon, when an extension throws outside its chain', () => {
  it('denies the call naming the extension and the error; other projects and sessions go on', async () => {
    const { env, project } = setup();
    const [a, b] = [project(), project()];
    const { socket, child } = await startDaemon(env);
    // Project b has a runtime already: it must not be touched by a's failure.
    expect(reasonOf(await askHook(socket, 'claude-code', bash(b, 'b1', 'forbidden')))).toBe(
      'forbidden by bomb',
    );

    // And one of its events is being decided while a's runtime crashes.
    const marker = join(b, 'go-on');
    const waiting = askHook(socket, 'claude-code', bash(b, 'b-wait', `wait ${marker}`));

    const crashed = await askHook(socket, 'claude-code', bash(a, 'a1', 'boom'));
    expect(crashed.code).toBe(0);
    expect(reasonOf(crashed)).toContain('"bomb"');
    expect(reasonOf(crashed)).toContain('boom in a timer');
    writeFileSync(marker, '');
    expect(reasonOf(await waiting)).toBe('waited');

    expect(child.exitCode).toBeNull();
    expect(reasonOf(await askHook(socket, 'claude-code', bash(b, 'b2', 'forbidden')))).toBe(
      'forbidden by bomb',
    );
    expect(await askHook(socket, 'claude-code', bash(b, 'b3', 'ls'))).toEqual({
      code: 0,
      stdout: '',
      stderr: '',
    });
    // Project a's next call is answered by a runtime loaded afresh.
    expect(await askHook(socket, 'claude-code', bash(a, 'a2', 'ls'))).toEqual({
      code: 0,
      stdout: '',
      stderr: '',
    });
  });

  it('keeps an answer given before a crash, logs and tells the crash naming the extension, and loads afresh', async () => {
    const { env, project } = setup();
    const dir = project();
    const { socket, stderr } = await startDaemon(env);
    const marker = join(dir, 'throw-now');
    const first = await askHook(socket, 'claude-code', bash(dir, 's1', `later ${marker}`));
    expect(reasonOf(first)).toBe('answered first');
    writeFileSync(marker, '');
    await expect
      .poll(stderr, { timeout: 30_000 })
      .toMatch(
        /runtime of .* failed: extension "bomb" raised an uncaught exception: Error: boom after the answer/,
      );
    // The runtime that crashed answers no more: a fresh one lets this call run, and the crash
    // is told with this answer (as the hook process tells it on stderr after its answer).
    const next = await askHook(socket, 'claude-code', bash(dir, 's1', 'ls'));
    expect(next).toMatchObject({ code: 0, stdout: '' });
    expect(next.stderr).toMatch(/extension "bomb" raised an uncaught exception: Error: boom after/);
  });

  it('denies a call whose handler left a promise rejected and unawaited, naming the extension', async () => {
    const { env, project } = setup();
    const { socket } = await startDaemon(env);
    const answer = await askHook(socket, 'claude-code', bash(project(), 's1', 'reject'));
    expect(reasonOf(answer)).toContain('"bomb"');
    expect(reasonOf(answer)).toContain('boom unawaited');
  });

  it('denies a call whose handler calls process.exit in a timer, naming the extension', async () => {
    const { env, project } = setup();
    const { socket } = await startDaemon(env);
    const answer = await askHook(socket, 'claude-code', bash(project(), 's1', 'exit'));
    expect(reasonOf(answer)).toContain('extension "bomb" called process.exit(0)');
    // The worker is replaced; the next call is decided by the extension loaded afresh (of another
    // session: the turn lock the ended worker held is not this test's concern).
    const next = await askHook(socket, 'claude-code', bash(project(), 's2', 'forbidden'));
    expect(reasonOf(next)).toContain('forbidden by bomb');
  });

  it('answers `hermes hook` of both agents with the deny, through the daemon', async () => {
    const { env, project } = setup();
    const { socket } = await startDaemon(env);
    const dir = project();
    for (const agent of ['claude-code', 'codex'] as const) {
      const before = await answeredBy(socket);
      const answer = await hookClient(socket, agent, {
        ...bash(dir, agent, 'boom'),
        turn_id: 't1',
      });
      expect(await answeredBy(socket)).toBe(before + 1);
      expect(answer.code, answer.stderr).toBe(0);
      expect(JSON.parse(answer.stdout)).toEqual({
        hookSpecificOutput: {
          hookEventName: 'PreToolUse',
          permissionDecision: 'deny',
          permissionDecisionReason: expect.stringMatching(/"bomb".*boom in a timer/),
        },
      });
    }
  });
});
