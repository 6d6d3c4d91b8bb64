import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tree, tsExtension } from '../../support/fixtures.js';
import { built, runBin, runHook } from '../../support/run-bin.js';
import { socketFolder, startDaemon, stopDaemons } from '../daemon/daemon-support.js';

afterEach(stopDaemons);

/**
 * Limits beyond a turn and the kill switch through real `hermes hook claude-code` processes and
 * the hook daemon (docs/teams.md): a session budget counted by one hook process, the daemon and
 * another hook process is one count; `hermes extensions pause --all` refuses every call of every
 * host until `resume --all`, and the agent can neither lift it nor touch what counts.
 */
function setup(body = '') {
  const home = tree({
    'extensions/limits.ts': tsExtension(
      'limits',
      body,
      `import { toolCallBudget } from 'hermes-extensions/policy';`,
    ),
  });
  const project = tree({ '.git/HEAD': '', 'src/app.ts': 'export const app = 1;\n' });
  // The suite turns the daemon off (vitest.config.ts); `daemon` turns it on for one call.
  const daemon = { HERMES_DAEMON_DIR: socketFolder(), HERMES_DAEMON: '1' };
  return { home, project, daemon };
}

let id = 0;
async function send(
  context: ReturnType<typeof setup>,
  event: Record<string, unknown>,
  env: Record<string, string> = {},
) {
  const answer = await runHook(
    'claude-code',
    context.home,
    {
      session_id: 'limits-session',
      transcript_path: '/dev/null',
      cwd: context.project,
      permission_mode: 'default',
      ...event,
    },
    env,
  );
  expect(answer.code, answer.stderr).toBe(0);
  const output = answer.stdout === '' ? {} : JSON.parse(answer.stdout);
  return {
    decision: String(output.hookSpecificOutput?.permissionDecision ?? 'allow'),
    reason: String(output.hookSpecificOutput?.permissionDecisionReason ?? ''),
  };
}

const prompt = (text: string) => ({ hook_event_name: 'UserPromptSubmit', prompt: text });
const tool = (name: string, input: Record<string, unknown>) => ({
  hook_event_name: 'PreToolUse',
  tool_name: name,
  tool_input: input,
  tool_use_id: `toolu_${id++}`,
});
const read = (context: ReturnType<typeof setup>) =>
  tool('Read', { file_path: join(context.project, 'src/app.ts') });

describe.runIf(built)('limits beyond a turn and the kill switch', { timeout: 90_000 }, () => {
  it('a session budget holds across two hook processes and the daemon, over turns', async () => {
    const context = setup(
      `hermes.on('intercept_tool_call', toolCallBudget(hermes, { max: 2, scope: 'session', tools: 'read' }), { phase: 'validate', priority: 10_000 });`,
    );
    await send(context, prompt('first turn'));
    expect((await send(context, read(context))).decision).toBe('allow');
    // A new turn: a per-turn budget would start again here.
    await send(context, prompt('second turn'));
    const daemon = await startDaemon({
      HERMES_HOME: context.home,
      HOME: context.home,
      ...context.daemon,
    });
    expect((await send(context, read(context), context.daemon)).decision).toBe('allow');
    const status = await runBin(['daemon', 'status'], {
      HERMES_HOME: context.home,
      HOME: context.home,
      ...context.daemon,
    });
    expect(status.stdout).toContain(`pid ${daemon.child.pid}`);
    expect(status.stdout).toMatch(/[1-9]\d* event\(s\) answered/);
    const third = await send(context, read(context));
    expect(third.decision).toBe('deny');
    expect(third.reason).toMatch(/at most 2 calls of read per session/);
    // And through the daemon too.
    expect((await send(context, read(context), context.daemon)).decision).toBe('deny');
  });

  it('the agent cannot reset what counts: $HERMES_HOME/limits is protected ground', async () => {
    const context = setup(
      `hermes.on('intercept_tool_call', toolCallBudget(hermes, { max: 5, scope: 'session', tools: 'read' }));`,
    );
    await send(context, prompt('go'));
    await send(context, read(context));
    const limits = join(context.home, 'limits');
    const [file] = readdirSync(limits).filter((name) => name.endsWith('.json'));
    const attacks = [
      tool('Write', { file_path: join(limits, file as string), content: '{"count":0}' }),
      tool('Bash', { command: `rm -rf ${limits}` }),
      tool('Bash', { command: `echo '{}' > ${join(limits, file as string)}` }),
      // Nor write the kill switch's flag (a forged or corrupt one).
      tool('Write', { file_path: join(context.home, 'paused.json'), content: '{}' }),
    ];
    for (const attack of attacks) {
      const got = await send(context, attack);
      expect(got.decision, JSON.stringify(attack)).toBe('deny');
      expect(got.reason).toContain('protected ground');
    }
    expect(existsSync(join(limits, file as string))).toBe(true);
  });

  it('pause --all refuses every call in hook processes and the daemon, the agent cannot lift it, resume --all does', async () => {
    const context = setup();
    const env = { HERMES_HOME: context.home, HOME: context.home };
    await send(context, prompt('go'));
    // The agent's own `resume` is a protected command, paused or not.
    const early = await send(context, tool('Bash', { command: 'hermes extensions resume --all' }));
    expect(early.decision).toBe('deny');
    expect(early.reason).toContain('hermes extensions resume');

    const paused = await runBin(['extensions', 'pause', '--all', '--reason', 'incident 42'], env);
    expect(paused.code, paused.stderr).toBe(0);
    expect(paused.stdout).toMatch(/Paused/);
    for (const call of [
      read(context),
      tool('Bash', { command: 'hermes extensions resume --all' }),
      tool('Bash', { command: 'hermes resume --all' }),
      tool('Bash', { command: `rm ${join(context.home, 'paused.json')}` }),
    ]) {
      const got = await send(context, call);
      expect(got.decision, JSON.stringify(call)).toBe('deny');
      expect(got.reason).toContain('incident 42');
      expect(got.reason).toMatch(/hermes(-extensions)? extensions resume --all/);
    }
    await startDaemon({ ...env, ...context.daemon });
    const daemonAnswer = await send(context, read(context), context.daemon);
    expect(daemonAnswer.decision).toBe('deny');
    expect(daemonAnswer.reason).toContain('incident 42');

    const list = await runBin(['extensions', 'list', '--cwd', context.project], env);
    expect(list.stdout).toMatch(/PAUSED/);
    expect(list.stdout).toContain('incident 42');
    const doctor = await runBin(['extensions', 'doctor', '--cwd', context.project], env);
    expect(doctor.stdout).toMatch(/paused/i);
    expect(doctor.stdout).toContain('incident 42');

    const resumed = await runBin(['extensions', 'resume', '--all'], env);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect((await send(context, read(context))).decision).toBe('allow');
    expect((await send(context, read(context), context.daemon)).decision).toBe('allow');
  });

  it('pause and resume need --all, and say so', async () => {
    const context = setup();
    const env = { HERMES_HOME: context.home, HOME: context.home };
    const pause = await runBin(['extensions', 'pause'], env);
    expect(pause.code).toBe(2);
    expect(pause.stderr).toMatch(/--all/);
    const resume = await runBin(['extensions', 'resume', '--all'], env);
    expect(resume.code).toBe(0);
    expect(resume.stdout).toMatch(/not paused/);
  });
});
