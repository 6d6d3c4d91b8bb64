import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tree, tsExtension } from '../../support/fixtures.js';
import { built, runBin } from '../../support/run-bin.js';
import {
  answeredAlike,
  answeredBy,
  ask,
  askHook,
  bash,
  freshHook,
  hookClient,
  reasonOf,
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

/** Refuses every shell call, saying what it read: in `setup`, and when the call came. */
const envy = tsExtension(
  'envy',
  `const atSetup = process.env.ACME_MODE;
    hermes.on('intercept_tool_call', () => block(\`setup=\${atSetup} now=\${process.env.ACME_MODE} mark=\${(globalThis as { mark?: string }).mark} home=\${homedir()}\`));`,
  "import { homedir } from 'node:os';",
);

describe.runIf(built)('the hook daemon answers with the environment', () => {
  it("of the hook that asks: a variable an extension reads is that hook's, per project", async () => {
    const { env } = setup({ 'extensions/envy.ts': envy });
    const [one, two] = [tree({ '.git/HEAD': '' }), tree({ '.git/HEAD': '' })];
    const { socket } = await startDaemon(env);
    const said = async (project: string, mode: string, home = env.HOME) =>
      reasonOf(
        await answeredAlike(socket, bash(project, `s-${mode}`), { ACME_MODE: mode, HOME: home }),
      );
    const reads = (mode: string, home = env.HOME) =>
      `setup=${mode} now=${mode} mark=undefined home=${home}`;
    expect(await said(one, 'a')).toBe(reads('a'));
    expect(await said(two, 'b')).toBe(reads('b'));
    expect(await said(one, 'c')).toBe(reads('c'));
    expect(await said(one, 'a')).toBe(reads('a'));
    // HOME too, which Node reads from the process where it is not told otherwise (os.homedir).
    const elsewhere = tree();
    expect(await said(one, 'd', elsewhere)).toBe(reads('d', elsewhere));
    const status = await ask(socket, '{"v":2,"control":"status"}');
    expect(status).toMatchObject({ runtimes: 4 });
    expect((status.projects as string[]).sort()).toEqual([one, two].sort());
  });

  it('of each hook, from one runtime for hooks that differ only in what loading did not read', async () => {
    const late = tsExtension(
      'late',
      `process.env.ACME_SET = 'by setup';
    hermes.on('intercept_tool_call', async () => { await new Promise((r) => setTimeout(r, 300)); return block(\`call=\${process.env.ACME_CALL} \${process.env.ACME_SET}\`); });`,
    );
    const { env } = setup({ 'extensions/late.ts': late });
    const project = tree({ '.git/HEAD': '' });
    const { socket } = await startDaemon(env);
    const call = (value: string, session = value) =>
      hookClient(socket, 'claude-code', bash(project, session), { ACME_CALL: value });
    expect(reasonOf(await answeredAlike(socket, bash(project, 'w'), { ACME_CALL: 'w' }))).toBe(
      'call=w by setup',
    );
    // At once, in one runtime: each event reads its own hook's value, and what setup set.
    const [x, y] = await Promise.all([call('x'), call('y')]);
    expect([reasonOf(x), reasonOf(y)]).toEqual(['call=x by setup', 'call=y by setup']);
    expect(await ask(socket, '{"v":2,"control":"status"}')).toMatchObject({
      runtimes: 1,
      requests: 3,
    });
  });

  it('of each hook, from one runtime for hooks that differ only in what jiti reads as it loads', async () => {
    // A TypeScript extension, not yet in jiti's disk cache: its runtime loads jiti, which reads
    // the CI, agent and terminal it runs in as it loads, and jiti's Babel, which lists the
    // environment's names. The framework's reads are not the runtime's, so a hook with other
    // values, or with a variable the others do not have, is served by the same runtime.
    const { env } = setup({ 'extensions/envy.ts': envy });
    const project = tree({ '.git/HEAD': '' });
    const { socket } = await startDaemon(env);
    const said = async (session: string, vars: Record<string, string>) =>
      reasonOf(await answeredAlike(socket, bash(project, session), { ACME_MODE: 'a', ...vars }));
    expect(await said('one', { CI: 'true', CLAUDECODE: '1', TERM: 'dumb' })).toMatch(/^setup=a /);
    expect(await said('two', { CI: 'false', CLAUDECODE: '0', TERM: 'xterm' })).toMatch(/^setup=a /);
    expect(await said('three', { CI: 'true', ACME_ONLY_HERE: '1' })).toMatch(/^setup=a /);
    expect(await ask(socket, '{"v":2,"control":"status"}')).toMatchObject({ runtimes: 1 });
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
      expect(reasonOf(a)).toBe(`setup=undefined now=undefined mark=a home=${env.HOME}`);
      // Another NODE_OPTIONS: not this daemon's to answer (the hook answers in-process).
      const b = await hookClient(socket, 'claude-code', bash(project, 'b'), marked('b'));
      expect(await answeredBy(socket)).toBe(1);
      expect(reasonOf(b)).toBe(`setup=undefined now=undefined mark=b home=${env.HOME}`);
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
      expect(await said(mode)).toBe(`setup=${mode} now=${mode} mark=undefined home=${env.HOME}`);
    expect(await ask(socket, '{"v":2,"control":"status"}')).toMatchObject({ runtimes: 2 });
  });
});
