import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DAEMON_PROTOCOL } from '../../../src/host/daemon/protocol.js';
import { tree, tsExtension, write } from '../../support/fixtures.js';
import { built, runBin, runHook } from '../../support/run-bin.js';
import { ask, askHook, bash, reasonOf, socketFolder, startDaemon } from './daemon-support.js';

const workflowGuard = `extensions:\n  paths: [hermes-extensions/workflow-guard]\n`;

/** An extension that refuses every shell call (Claude Code's Bash) with `message`. */
const refuseBash = (name: string, message: string) =>
  tsExtension(
    name,
    `hermes.on('intercept_tool_call', (e) => e.toolName === 'bash' ? block(${JSON.stringify(message)}) : undefined);`,
  );

function setup(homeFiles: Record<string, string> = {}) {
  const home = tree(homeFiles);
  const project = tree({ '.git/HEAD': '' });
  const env = { HERMES_HOME: home, HOME: home, HERMES_DAEMON_DIR: socketFolder() };
  return { home, project, env };
}

describe.runIf(built)('the hook daemon answers', () => {
  it('as the hook process does (workflow-guard deny, then allow), sharing the turn on disk with it', async () => {
    const { home, project, env } = setup({ 'config.yaml': workflowGuard });
    const { socket } = await startDaemon(env);
    const base = { transcript_path: '/dev/null', cwd: project, permission_mode: 'default' };
    const prompt = { ...base, hook_event_name: 'UserPromptSubmit', prompt: 'fix the login bug' };
    const edit = {
      ...base,
      hook_event_name: 'PreToolUse',
      tool_name: 'Edit',
      tool_use_id: 'toolu_1',
      tool_input: { file_path: join(project, 'src/login.ts'), old_string: 'a', new_string: 'b' },
    };
    const both = async (event: Record<string, unknown>) => {
      const viaDaemon = await askHook(socket, 'claude-code', { ...event, session_id: 'daemon' });
      const inProcess = await runHook('claude-code', home, { ...event, session_id: 'process' });
      expect(viaDaemon).toEqual(inProcess);
      return viaDaemon;
    };
    expect(JSON.parse((await both(prompt)).stdout).hookSpecificOutput.additionalContext).toMatch(
      /\/start-feature fix the login bug/,
    );
    expect(reasonOf(await both(edit))).toMatch(/Write the plan at plans\/active\/plan\.md/);
    write(project, { 'plans/active/plan.md': '# Plan\n1. fix\n' });
    // A new call (one id is decided once).
    expect(await both({ ...edit, tool_use_id: 'toolu_2' })).toEqual({
      code: 0,
      stdout: '',
      stderr: '',
    });

    // One turn, half through the daemon and half through a hook process: the state is on disk.
    await askHook(socket, 'claude-code', { ...prompt, session_id: 'mixed' });
    const afterPrompt = JSON.parse(readFileSync(join(home, 'turns', 'mixed.json'), 'utf8'));
    await runHook('claude-code', home, { ...edit, session_id: 'mixed' });
    const afterEdit = JSON.parse(readFileSync(join(home, 'turns', 'mixed.json'), 'utf8'));
    // The hook process went on with the daemon's turn, as it goes on with its own.
    expect(afterEdit.turnId).toBe(afterPrompt.turnId);
  });

  it('for two projects at once without mixing them, and tells their count in its status', async () => {
    const { env } = setup();
    const guarded = tree({
      '.git/HEAD': '',
      '.hermes/extensions/refuse.ts': refuseBash('refuse', 'not here'),
    });
    const plain = tree({ '.git/HEAD': '' });
    expect((await runBin(['extensions', 'trust', '--yes', '--cwd', guarded], env)).code).toBe(0);
    const { socket } = await startDaemon(env);
    const [a, b] = await Promise.all([
      askHook(socket, 'claude-code', bash(guarded, 'a')),
      askHook(socket, 'claude-code', bash(plain, 'b')),
    ]);
    expect(reasonOf(a)).toBe('not here');
    expect(b).toEqual({ code: 0, stdout: '', stderr: '' });
    const status = await ask(socket, '{"v":1,"control":"status"}');
    expect(status).toMatchObject({
      v: DAEMON_PROTOCOL,
      socket,
      requests: 2,
      runtimes: 2,
      home: env.HERMES_HOME,
    });
    expect((status.projects as string[]).sort()).toEqual([guarded, plain].sort());
  });

  it("in the session's pinned project: a .git file and a plan below it start no project of their own", async () => {
    const { env } = setup();
    const guarded = tree({
      '.git/HEAD': '',
      '.hermes/extensions/refuse.ts': refuseBash('refuse', 'not here'),
    });
    expect((await runBin(['extensions', 'trust', '--yes', '--cwd', guarded], env)).code).toBe(0);
    const { socket } = await startDaemon(env);
    const reported = { CLAUDE_PROJECT_DIR: guarded };
    expect(
      reasonOf(await askHook(socket, 'claude-code', bash(guarded, 'pin'), '/', reported)),
    ).toBe('not here');
    write(guarded, { 'plans/x/.git': 'gitdir: nowhere\n' });
    const fake = join(guarded, 'plans/x');
    expect(reasonOf(await askHook(socket, 'claude-code', bash(fake, 'pin'), '/', reported))).toBe(
      'not here',
    );
    // One runtime: the session's project's, never one for plans/x.
    const status = await ask(socket, '{"v":1,"control":"status"}');
    expect(status.projects).toEqual([guarded]);
  });

  it("with what an extension logs or writes to stderr meanwhile on that answer's stderr", async () => {
    const noisy = tsExtension(
      'noisy',
      `hermes.on('intercept_tool_call', () => { hermes.log.warn('through the log'); console.error('straight to stderr'); });`,
    );
    const { home, project, env } = setup({ 'extensions/noisy.ts': noisy });
    const { socket } = await startDaemon(env);
    const viaDaemon = await askHook(socket, 'claude-code', bash(project, 'n1'));
    expect(viaDaemon.stderr).toBe('[hermes:noisy] through the log\nstraight to stderr\n');
    expect(viaDaemon).toEqual(await runHook('claude-code', home, bash(project, 'n2')));
  });

  it('one session in order: parallel events of one turn lose nothing', async () => {
    const counter = tsExtension(
      'counter',
      `hermes.on('intercept_tool_call', async (e) => { const seen = e.state.calls ?? 0; await new Promise((r) => setTimeout(r, 100)); e.state.calls = seen + 1; });`,
    );
    const { home, project, env } = setup({ 'extensions/counter.ts': counter });
    const { socket } = await startDaemon(env);
    await Promise.all(
      Array.from({ length: 5 }, () => askHook(socket, 'claude-code', bash(project, 'count'))),
    );
    const stored = JSON.parse(readFileSync(join(home, 'turns', 'count.json'), 'utf8'));
    expect(stored.state).toMatchObject({ calls: 5 });
  });

  it('with the edit of an extension, of a config and of the trust record live on the next event', async () => {
    const { home, project, env } = setup({ 'extensions/refuse.ts': refuseBash('refuse', 'first') });
    // Counts the loads of the runtime: its setup runs once per load.
    write(home, {
      'extensions/loads.ts': tsExtension(
        'loads',
        `appendFileSync(${JSON.stringify(join(home, 'loads.txt'))}, 'load\\n');`,
        `import { appendFileSync } from 'node:fs';`,
      ),
    });
    const loads = () => readFileSync(join(home, 'loads.txt'), 'utf8').split('\n').length - 1;
    const { socket } = await startDaemon(env);
    const call = () => askHook(socket, 'claude-code', bash(project));
    expect(reasonOf(await call())).toBe('first');
    expect(reasonOf(await call())).toBe('first');
    expect(loads()).toBe(1);

    write(home, { 'extensions/refuse.ts': refuseBash('refuse', 'second') });
    expect(reasonOf(await call())).toBe('second');
    expect(reasonOf(await call())).toBe('second');
    expect(loads()).toBe(2);

    // A config that was not there: it turns the extension off.
    write(home, { 'config.yaml': 'extensions:\n  disabled: [refuse]\n' });
    expect(await call()).toEqual({ code: 0, stdout: '', stderr: '' });
    rmSync(join(home, 'config.yaml'));
    expect(reasonOf(await call())).toBe('second');

    // A new extension in the project: not run until the project is trusted, then until revoked.
    rmSync(join(home, 'extensions/refuse.ts'));
    write(project, { '.hermes/extensions/local.ts': refuseBash('local', 'project says no') });
    const untrusted = await call();
    expect(reasonOf(untrusted)).toBeUndefined();
    expect(JSON.parse(untrusted.stdout).systemMessage).toMatch(/not running/);
    expect((await runBin(['extensions', 'trust', '--yes', '--cwd', project], env)).code).toBe(0);
    expect(reasonOf(await call())).toBe('project says no');
    expect((await runBin(['extensions', 'trust', '--revoke', '--cwd', project], env)).code).toBe(0);
    expect(reasonOf(await call())).toBeUndefined();
  });

  it('within the hook deadline, with a refusal, and goes on answering', async () => {
    const hang = tsExtension(
      'hang',
      `hermes.on('intercept_tool_call', (e) => e.toolArgs.command === 'hang' ? new Promise(() => {}) : undefined);`,
    );
    const { project, env } = setup({ 'extensions/hang.ts': hang });
    const { socket } = await startDaemon({ ...env, HERMES_HOOK_DEADLINE_MS: '500' });
    // The runtime is loaded first, so the deadline is left to the chain (loading it on a loaded
    // 2-core machine may take longer than the deadline, which is not what this is about).
    // Its answer may be a refusal too, when loading took the whole deadline.
    expect((await askHook(socket, 'claude-code', bash(project, 'warm'))).code).toBe(0);
    const late = await askHook(socket, 'claude-code', bash(project, 'h', 'hang'));
    // The chain is cut where the hook deadline leaves it (hook-deadline.ts chainsDeadline).
    expect(reasonOf(late)).toMatch(
      /intercept_tool_call chain ran past the -?\d+ ms its host's deadline left it \(ran: none; (cut off: hang; did not run: none|did not run: hang)\)/,
    );
    expect(await askHook(socket, 'claude-code', bash(project, 'other'))).toEqual({
      code: 0,
      stdout: '',
      stderr: '',
    });
  });

  it('within the hook deadline when a handler never yields, and goes on answering', async () => {
    const spin = tsExtension(
      'spin',
      `hermes.on('intercept_tool_call', (e) => { if (e.toolArgs.command === 'spin') for (;;) {} });`,
    );
    const { project, env } = setup({ 'extensions/spin.ts': spin });
    const elsewhere = tree({ '.git/HEAD': '' });
    // Two seconds: the other project's call is answered while a thread spins on one of the two
    // cores, which on a machine busy with other work can take more than half a second.
    const { socket } = await startDaemon({ ...env, HERMES_HOOK_DEADLINE_MS: '2000' });
    // The other project's runtime is loaded first: loading one on a loaded 2-core machine while a
    // thread spins may itself take longer than the deadline, which is not what this is about.
    expect((await askHook(socket, 'claude-code', bash(elsewhere, 'warm'))).code).toBe(0);
    const stuck = askHook(socket, 'claude-code', bash(project, 'h', 'spin'));
    // Another project is answered meanwhile, from a runtime of its own.
    expect(await askHook(socket, 'claude-code', bash(elsewhere, 'e'))).toEqual({
      code: 0,
      stdout: '',
      stderr: '',
    });
    expect(reasonOf(await stuck)).toMatch(/did not decide within 2 s/);
    // And this one again, once its stuck runtime has been ended.
    expect(await askHook(socket, 'claude-code', bash(project, 'other'))).toEqual({
      code: 0,
      stdout: '',
      stderr: '',
    });
  });

  it("after an extension's uncaught error ended its runtime", async () => {
    const crash = tsExtension(
      'crash',
      `hermes.on('intercept_tool_call', (e) => { if (e.toolArgs.command === 'crash') setTimeout(() => { throw new Error('boom'); }, 0); });`,
    );
    const { project, env } = setup({ 'extensions/crash.ts': crash });
    const { socket, stderr } = await startDaemon(env);
    await askHook(socket, 'claude-code', bash(project, 'c', 'crash'));
    await expect.poll(stderr, { timeout: 30_000 }).toMatch(/extension "crash" raised/);
    // Allowed, by a runtime loaded afresh; the crash after the earlier answer is told with it.
    const next = await askHook(socket, 'claude-code', bash(project, 'c'));
    expect(next).toMatchObject({ code: 0, stdout: '' });
    expect(next.stderr).toMatch(/extension "crash" raised an uncaught exception: Error: boom/);
  });

  it('a request it cannot read with a refusal, as the hook process refuses an unreadable event', async () => {
    const { home, env } = setup();
    const { socket } = await startDaemon(env);
    const unreadable = await askHook(socket, 'claude-code', 'not json');
    expect(unreadable).toEqual(await runHook('claude-code', home, JSON.stringify('not json')));
    const wrongVersion = await ask(
      socket,
      JSON.stringify({ v: 99, agent: 'codex', stdin: '{}', cwd: '/' }),
    );
    expect(wrongVersion).toMatchObject({ exitCode: 0 });
    expect(JSON.parse(wrongVersion.stdout as string).hookSpecificOutput).toMatchObject({
      permissionDecision: 'deny',
    });
    expect(await ask(socket, 'garbage')).toMatchObject({ exitCode: 2, stdout: '' });
  });
});
