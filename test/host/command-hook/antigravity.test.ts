import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { answerSchema } from '../../support/agent-answers.js';
import { tree, tsExtension, write } from '../../support/fixtures.js';
import { bin, built, runProcess } from '../../support/run-bin.js';

/**
 * `hermes hook antigravity`: Antigravity's tool calls, as agy sends them (protobuf JSON, no event
 * name), through the real engine and real extensions; every answer names a decision and is held
 * to what Antigravity accepts (test/support/antigravity-answers.ts).
 */

const careful = tsExtension(
  'careful',
  `hermes.on('intercept_tool_call', (e) => {
    const command = String(e.toolArgs.command ?? '');
    if (command.includes('deploy')) return ask('deploys to production');
    if (command.includes('.tmp')) return { action: 'rewrite', value: { ...e.toolArgs, command: command.replace('.tmp', '.md') } };
    return undefined;
  }, { tools: 'bash' });`,
  `import { ask } from 'hermes-extensions';`,
);

function setup() {
  const home = tree({
    'config.yaml': `extensions:\n  paths: [hermes-extensions/workflow-guard]\n`,
    'extensions/careful.ts': careful,
  });
  const project = tree({ '.git/HEAD': '', 'src/app.ts': 'x\n' });
  let step = 0;
  const send = async (event: Record<string, unknown> | string) => {
    const run = await runProcess(process.execPath, [bin, 'hook', 'antigravity'], {
      env: { HOME: home, HERMES_HOME: home, HERMES_DAEMON: '0' },
      stdin: typeof event === 'string' ? event : JSON.stringify(event),
    });
    expect(run.code, run.stderr).toBe(0);
    const answer = JSON.parse(run.stdout);
    const checked = answerSchema('antigravity', 'PreToolUse').safeParse(answer);
    expect(checked.error?.issues, run.stdout).toBeUndefined();
    return { answer, stderr: run.stderr };
  };
  // The fields agy 1.1 sends with a PreToolUse (safe-chains' and ToolAhead's captures).
  const tool = (name: string, args: Record<string, unknown>) =>
    send({
      conversationId: 'conv-agy',
      stepIdx: step++,
      toolCall: { name, args },
      workspacePaths: [project],
      modelName: 'gemini-3-pro',
      transcriptPath: join(home, 'transcript.jsonl'),
    });
  return { project, send, tool };
}

describe.runIf(built)('hermes hook antigravity', () => {
  it('workflow-guard refuses an edit before a plan; a read, and the edit once planned, are "allow"', async () => {
    const { project, tool } = setup();
    const target = join(project, 'src/app.ts');
    const refused = (await tool('write_to_file', { TargetFile: target, CodeContent: 'y' })).answer;
    expect(refused.decision).toBe('deny');
    expect(refused.reason).toMatch(/workflow-guard.*no plan exists/);
    expect((await tool('view_file', { AbsolutePath: target })).answer).toEqual({
      decision: 'allow',
    });
    write(project, { 'plans/active/plan.md': '# Plan\n' });
    expect((await tool('write_to_file', { TargetFile: target, CodeContent: 'y' })).answer).toEqual({
      decision: 'allow',
    });
  });

  it('an ask is force_ask; a rewrite, which Antigravity cannot take, is refused saying so', async () => {
    const { project, tool } = setup();
    write(project, { 'plans/active/plan.md': '# Plan\n' });
    expect(
      (await tool('run_command', { CommandLine: 'echo deploy --prod', Cwd: project })).answer,
    ).toEqual({
      decision: 'force_ask',
      reason: 'needs approval: deploys to production (asked by careful)',
    });
    const rewritten = (await tool('run_command', { CommandLine: 'cat a.tmp', Cwd: project }))
      .answer;
    expect(rewritten.decision).toBe('deny');
    expect(rewritten.reason).toMatch(/Antigravity hooks cannot rewrite one, so it is refused/);
    expect((await tool('run_command', { CommandLine: 'ls', Cwd: project })).answer).toEqual({
      decision: 'allow',
    });
    // A command the protected-ground rule cannot read would run in its sandbox, which Antigravity
    // cannot be handed: refused (docs/trust.md, Protected ground).
    const unread = (await tool('run_command', { CommandLine: 'make', Cwd: project })).answer;
    expect(unread.decision).toBe('deny');
    expect(unread.reason).toMatch(/Antigravity hooks cannot rewrite one, so it is refused/);
  });

  it('starting a subagent is a spawn never covered: workflow-guard refuses it before a plan', async () => {
    const { tool } = setup();
    const { answer } = await tool('invoke_subagent', { Prompt: 'refactor everything' });
    expect(answer.decision).toBe('deny');
    expect(answer.reason).toMatch(/subagent/);
  });

  it('an event that cannot be read is refused, saying why', async () => {
    const { send } = setup();
    for (const [event, why] of [
      ['not json', /not a hook event/],
      [JSON.stringify({ toolCall: { name: 'run_command', args: {} } }), /no conversationId/],
      [JSON.stringify({ conversationId: 'c', toolCall: null }), /no toolCall object/],
    ] as const) {
      const { answer, stderr } = await send(event);
      expect(answer.decision).toBe('deny');
      expect(answer.reason).toMatch(why);
      expect(stderr).toMatch(/hermes hook antigravity: /);
    }
  });
});
