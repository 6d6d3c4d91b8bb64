import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tree, tsExtension } from '../../support/fixtures.js';
import { built, runBin } from '../../support/run-bin.js';
import {
  answeredAlike,
  answeredBy,
  ask,
  askHook,
  freshHook,
  hookClient,
  socketFolder,
  startDaemon,
} from './daemon-support.js';

/** The daemon answers each hook with that hook's environment, as the hook process would. */

function setup(homeFiles: Record<string, string>) {
  const home = tree(homeFiles);
  const env = {
    HERMES_HOME: home,
    HOME: home,
    HERMES_DAEMON_DIR: socketFolder(),
    HERMES_DAEMON: undefined,
  };
  return { home, env };
}

const bash = (cwd: string, session: string) => ({
  session_id: session,
  transcript_path: '/dev/null',
  cwd,
  permission_mode: 'default',
  hook_event_name: 'PreToolUse',
  tool_name: 'Bash',
  tool_input: { command: 'ls', description: 'list' },
});

const reasonOf = (answer: { stdout: string }) =>
  answer.stdout === ''
    ? undefined
    : JSON.parse(answer.stdout).hookSpecificOutput?.permissionDecisionReason;

/** Refuses every shell call, saying what it read: in `setup`, and when the call came. */
const envy = tsExtension(
  'envy',
  `const atSetup = process.env.ACME_MODE;
    hermes.on('intercept_tool_call', () => block(\`setup=\${atSetup} now=\${process.env.ACME_MODE} mark=\${(globalThis as { mark?: string }).mark}\`));`,
);

describe.runIf(built)('the hook daemon answers with the environment', () => {
  it("of the hook that asks: a variable an extension reads is that hook's, per project", async () => {
    const { env } = setup({ 'extensions/envy.ts': envy });
    const [one, two] = [tree({ '.git/HEAD': '' }), tree({ '.git/HEAD': '' })];
    const { socket } = await startDaemon(env);
    const said = async (project: string, mode: string) =>
      reasonOf(await answeredAlike(socket, bash(project, `s-${mode}`), { ACME_MODE: mode }));
    expect(await said(one, 'a')).toBe('setup=a now=a mark=undefined');
    expect(await said(two, 'b')).toBe('setup=b now=b mark=undefined');
    expect(await said(one, 'c')).toBe('setup=c now=c mark=undefined');
    expect(await said(one, 'a')).toBe('setup=a now=a mark=undefined');
    const status = await ask(socket, '{"v":2,"control":"status"}');
    expect(status).toMatchObject({ runtimes: 3 });
    expect((status.projects as string[]).sort()).toEqual([one, two].sort());
  });

  it('of the process for what takes effect at its start (NODE_OPTIONS): another value, another daemon', async () => {
    const { env } = setup({ 'extensions/envy.ts': envy });
    const project = tree({ '.git/HEAD': '' });
    const work = tree({
      'mark-a.cjs': "globalThis.mark = 'a';",
      'mark-b.cjs': "globalThis.mark = 'b';",
    });
    const marked = (mark: string) => ({
      NODE_OPTIONS: `--require ${join(work, `mark-${mark}.cjs`)}`,
    });
    const { socket } = await startDaemon({ ...env, ...marked('a') });
    try {
      const a = await answeredAlike(socket, bash(project, 'a'));
      expect(reasonOf(a)).toBe('setup=undefined now=undefined mark=a');
      // Another NODE_OPTIONS: not this daemon's to answer (the hook answers in-process).
      const b = await hookClient(socket, 'claude-code', bash(project, 'b'), marked('b'));
      expect(await answeredBy(socket)).toBe(1);
      expect(reasonOf(b)).toBe('setup=undefined now=undefined mark=b');
      expect(b).toEqual(await freshHook(socket, 'claude-code', bash(project, 'b'), marked('b')));
    } finally {
      // The hook started that environment's daemon in the background.
      await runBin(['daemon', 'stop', '--all'], { ...env, ...marked('b') });
    }
  });

  it('in at most HERMES_DAEMON_MAX_RUNTIMES runtimes, the least recently used ending first', async () => {
    const { env } = setup({ 'extensions/envy.ts': envy });
    const project = tree({ '.git/HEAD': '' });
    const { socket } = await startDaemon({ ...env, HERMES_DAEMON_MAX_RUNTIMES: '2' });
    const said = async (mode: string) =>
      reasonOf(await askHook(socket, 'claude-code', bash(project, mode), '/', { ACME_MODE: mode }));
    for (const mode of ['1', '2', '3', '1', '3', '2'])
      expect(await said(mode)).toBe(`setup=${mode} now=${mode} mark=undefined`);
    expect(await ask(socket, '{"v":2,"control":"status"}')).toMatchObject({ runtimes: 2 });
  });
});
