import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { answerSchema } from '../../support/agent-answers.js';
import { jsonLines, tree, tsExtension, write } from '../../support/fixtures.js';
import { bin, built, runProcess } from '../../support/run-bin.js';

/**
 * `hermes hook cursor`: Cursor's events, as its hooks send them, through the real engine and real
 * extensions, each answer held to what Cursor accepts for the event (test/support/cursor-answers.ts).
 */

const extensions = `extensions:\n  paths: [hermes-extensions/workflow-guard]\n`;

const careful = tsExtension(
  'careful',
  `hermes.on('intercept_tool_call', (e) => {
    const command = String(e.toolArgs.command ?? '');
    if (command.startsWith('deploy')) return ask('deploys to production');
    if (command.includes('.tmp')) return { action: 'rewrite', value: { ...e.toolArgs, command: command.replace('.tmp', '.md') } };
    return undefined;
  }, { tools: 'bash' });
  hermes.on('transform_user_input', (e) => e.userMessage.includes('password') ? block('no passwords in prompts') : undefined);
  hermes.observe('*', (p) => appendFileSync(join(process.env.HERMES_HOME, 'events.jsonl'), JSON.stringify(p) + '\\n'));`,
  `import { ask } from 'hermes-extensions';\nimport { appendFileSync } from 'node:fs';\nimport { join } from 'node:path';`,
);

function setup() {
  const home = tree({ 'config.yaml': extensions, 'extensions/careful.ts': careful });
  const project = tree({ '.git/HEAD': '', 'src/app.ts': 'x\n' });
  let calls = 0;
  // The fields every Cursor event carries (cursor.com/docs/agent/hooks).
  const base = {
    conversation_id: 'conv-1',
    generation_id: 'gen-1',
    model: 'gpt-5',
    cursor_version: '2.0.77',
    workspace_roots: [project],
    user_email: null,
    transcript_path: null,
  };
  const send = async (event: Record<string, unknown> | string) => {
    const run = await runProcess(process.execPath, [bin, 'hook', 'cursor'], {
      env: { HOME: home, HERMES_HOME: home, HERMES_DAEMON: '0' },
      stdin: typeof event === 'string' ? event : JSON.stringify({ ...base, ...event }),
    });
    expect(run.code, run.stderr).toBe(0);
    const answer = JSON.parse(run.stdout);
    const name = typeof event === 'string' ? 'preToolUse' : String(event.hook_event_name);
    const checked = answerSchema('cursor', name).safeParse(answer);
    expect(checked.error?.issues, `${name}: ${run.stdout}`).toBeUndefined();
    return { answer, stderr: run.stderr };
  };
  const tool = (tool_name: string, tool_input: Record<string, unknown>) =>
    send({
      hook_event_name: 'preToolUse',
      tool_name,
      tool_input,
      tool_use_id: `tool_${calls++}`,
      cwd: project,
    });
  const prompt = (text: string) => send({ hook_event_name: 'beforeSubmitPrompt', prompt: text });
  return { home, project, send, tool, prompt, events: () => jsonLines(join(home, 'events.jsonl')) };
}

describe.runIf(built)('hermes hook cursor', () => {
  it('workflow-guard refuses an edit before a plan and lets it run once there is one', async () => {
    const { project, tool, prompt } = setup();
    expect((await prompt('fix the bug in src/app.ts')).answer).toEqual({ continue: true });
    const refused = (await tool('Write', { file_path: join(project, 'src/app.ts'), content: 'y' }))
      .answer;
    expect(refused.permission).toBe('deny');
    expect(refused.agent_message).toMatch(/workflow-guard.*no plan exists/);
    expect(refused.user_message).toBe(refused.agent_message);
    // Reading is not editing; the plan itself may be written.
    expect((await tool('Read', { file_path: join(project, 'src/app.ts') })).answer).toEqual({});
    write(project, { 'plans/active/plan.md': '# Plan\n\n1. fix it\n' });
    expect(
      (await tool('Write', { file_path: join(project, 'src/app.ts'), content: 'y' })).answer,
    ).toEqual({});
  });

  it('a rewrite is updated_input with allow, an ask is permission "ask", a blocked prompt continue: false', async () => {
    const { tool, prompt, project, events } = setup();
    write(project, { 'plans/active/plan.md': '# Plan\n' });
    expect((await tool('Shell', { command: 'cat notes.tmp' })).answer).toEqual({
      permission: 'allow',
      updated_input: { command: 'cat notes.md' },
    });
    const asked = (await tool('Shell', { command: 'deploy --prod' })).answer;
    // Asked about as it would run: in the protected-ground sandbox, which the rule cannot read
    // `deploy` out of (docs/trust.md, Protected ground).
    expect(asked).toEqual({
      permission: 'ask',
      user_message: 'needs approval: deploys to production (asked by careful)',
      agent_message: 'needs approval: deploys to production (asked by careful)',
      updated_input: { command: expect.stringContaining("-c 'deploy --prod'") },
    });
    expect((await prompt('my password is hunter2')).answer).toEqual({
      continue: false,
      user_message: 'no passwords in prompts',
    });
    // The shell call reached the extensions as `bash`, in the call's folder.
    const calls = events().filter((e) => e.event === 'pre_tool_call');
    expect(calls.map((e) => [e.platform, e.tool_name])).toContainEqual(['cursor', 'bash']);
  });

  it('observers hear the outcome at postToolUse and the end at stop; both are answered with {}', async () => {
    const { send, tool, prompt, project, events } = setup();
    write(project, { 'plans/active/plan.md': '# Plan\n' });
    await prompt('list the files');
    await tool('Shell', { command: 'ls' });
    const after = await send({
      hook_event_name: 'postToolUse',
      tool_name: 'Shell',
      tool_input: { command: 'ls' },
      tool_use_id: 'tool_0',
      tool_output: 'src\n',
      cwd: project,
    });
    expect(after.answer).toEqual({});
    expect(
      (await send({ hook_event_name: 'stop', status: 'completed', loop_count: 0 })).answer,
    ).toEqual({});
    const told = events().map((e) => e.event);
    expect(told).toContain('post_tool_call');
    expect(told).toContain('on_session_end');
    // An event the engine does not answer (not installed, but sent anyway) is {} too.
    expect((await send({ hook_event_name: 'afterAgentResponse', text: 'done' })).answer).toEqual(
      {},
    );
  });

  it('an event that cannot be read is refused, saying why', async () => {
    const { send } = setup();
    for (const malformed of [
      'not json',
      JSON.stringify([]),
      JSON.stringify({ tool_name: 'Shell', tool_input: { command: 'ls' } }),
    ]) {
      const { answer, stderr } = await send(malformed);
      expect(answer.permission).toBe('deny');
      expect(answer.agent_message).toMatch(/^Hermes could not check this call, so it is refused: /);
      expect(stderr).toMatch(/hermes hook cursor: /);
    }
    // A tool call without its conversation (the turn it belongs to cannot be found).
    const { answer } = await send({
      hook_event_name: 'preToolUse',
      conversation_id: undefined,
      tool_name: 'Shell',
      tool_input: { command: 'ls' },
      tool_use_id: 'x',
    });
    expect(answer.permission).toBe('deny');
    expect(answer.agent_message).toMatch(/no conversation_id/);
  });

  it('is answered by the warm hook daemon as the other agents are', async () => {
    const { home, project } = setup();
    // The tests turn the daemon off (vitest.config.ts): on here.
    const env = { HOME: home, HERMES_HOME: home, HERMES_DAEMON: undefined };
    const event = (id: string) =>
      JSON.stringify({
        hook_event_name: 'preToolUse',
        conversation_id: 'conv-daemon',
        generation_id: 'gen-1',
        workspace_roots: [project],
        tool_name: 'Write',
        tool_input: { file_path: join(project, 'src/app.ts'), content: 'y' },
        tool_use_id: id,
        cwd: project,
      });
    try {
      for (const id of ['d1', 'd2']) {
        const run = await runProcess(process.execPath, [bin, 'hook', 'cursor'], {
          env,
          stdin: event(id),
        });
        expect(JSON.parse(run.stdout).permission).toBe('deny');
      }
      const status = await runProcess(process.execPath, [bin, 'daemon', 'status'], { env });
      expect(status.stdout).toMatch(/[1-9]\d* event\(s\) answered/);
    } finally {
      await runProcess(process.execPath, [bin, 'daemon', 'stop'], { env });
    }
  });
});
