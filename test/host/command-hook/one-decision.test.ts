import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { block, createRuntime } from 'hermes-extensions';
import { memoryLogger } from 'hermes-extensions/testing';
import { describe, expect, it } from 'vitest';
import { claudeCode } from '../../../src/host/command-hook/agents.js';
import { runCommandHook } from '../../../src/host/command-hook/run-hook.js';
import type { RuntimeSource } from '../../../src/host/command-hook/runtime-source.js';
import { answerSchema } from '../../support/agent-answers.js';
import { tree, tsExtension } from '../../support/fixtures.js';
import { ext } from '../../support/helpers.js';
import { built, runHook } from '../../support/run-bin.js';

type Agent = 'claude-code' | 'codex';

/**
 * One decision per tool call: a `PreToolUse` that comes again with the same `tool_use_id` (a late
 * daemon after the in-process fallback answered, a retried hook) answers what was decided, without
 * running the chain again, reporting it again or counting it again in the turn's state.
 */
function setup(agent: Agent) {
  const project = tree({ '.git/HEAD': '' });
  const runs = join(project, 'chain-runs.txt');
  const events = join(project, 'events.jsonl');
  const home = tree({
    // Each run of the chain leaves a line and a count in the turn's state; `rm` is refused,
    // `.tmp` rewritten to `.md`.
    'extensions/guard.ts': tsExtension(
      'guard',
      `hermes.on('intercept_tool_call', (e) => {
        appendFileSync(${JSON.stringify(runs)}, String(e.toolArgs.command) + '\\n');
        e.state.calls = ((e.state.calls as number) ?? 0) + 1;
        const command = String(e.toolArgs.command);
        if (command.includes('rm ')) return block('no rm here');
        if (command.includes('.tmp')) return { action: 'rewrite', value: { ...e.toolArgs, command: command.replace('.tmp', '.md') } };
        return undefined;
      });
      hermes.observe('*', (p) => appendFileSync(${JSON.stringify(events)}, JSON.stringify(p) + '\\n'));`,
      `import { appendFileSync } from 'node:fs';`,
    ),
  });
  const session = `${agent}-one-decision`;
  const base = {
    session_id: session,
    ...(agent === 'codex' ? { turn_id: 't1', model: 'gpt-5.5' } : { transcript_path: '/dev/null' }),
    cwd: project,
    permission_mode: 'default',
  };
  const call = (id: string | undefined, command: string) => ({
    ...base,
    hook_event_name: 'PreToolUse',
    tool_name: 'Bash',
    tool_input: { command },
    ...(id === undefined ? {} : { tool_use_id: id }),
  });
  const lines = (file: string) =>
    existsSync(file) ? readFileSync(file, 'utf8').trim().split('\n') : [];
  return {
    home,
    base,
    call,
    chainRuns: () => lines(runs),
    reported: () =>
      lines(events)
        .map((line) => JSON.parse(line) as Record<string, unknown>)
        .map((e) => `${e.event} ${e.tool_call_id ?? ''}`.trim()),
    state: () =>
      JSON.parse(readFileSync(join(home, 'turns', `${encodeURIComponent(session)}.json`), 'utf8'))
        .state,
  };
}

async function ask(agent: Agent, home: string, event: Record<string, unknown>) {
  const answer = await runHook(agent, home, event);
  expect(answer.code, answer.stderr).toBe(0);
  if (answer.stdout !== '') {
    const checked = answerSchema(agent, String(event.hook_event_name)).safeParse(
      JSON.parse(answer.stdout),
    );
    expect(checked.error?.issues, answer.stdout).toBeUndefined();
  }
  return answer;
}

const decision = (answer: { stdout: string }) =>
  answer.stdout === '' ? undefined : JSON.parse(answer.stdout).hookSpecificOutput;

describe.runIf(built).each(['claude-code', 'codex'] as const)(
  'hermes hook %s decides each tool call once, by its tool_use_id',
  { timeout: 60_000 },
  (agent) => {
    it('answers the same allow again without running the chain, reporting or counting it again', async () => {
      const { home, call, chainRuns, reported, state } = setup(agent);
      const first = await ask(agent, home, call('c1', 'ls'));
      expect(first).toEqual({ code: 0, stdout: '', stderr: '' });
      const again = await ask(agent, home, call('c1', 'ls'));
      expect(again).toEqual(first);
      expect(chainRuns()).toEqual(['ls']);
      expect(state()).toEqual({ calls: 1 });
      expect(reported()).toEqual(['pre_tool_call c1']);
    });

    it('answers the same deny again, with one decision and one outcome reported', async () => {
      const { home, call, chainRuns, reported, state } = setup(agent);
      const first = await ask(agent, home, call('c1', 'rm -rf src'));
      expect(decision(first)).toMatchObject({
        permissionDecision: 'deny',
        permissionDecisionReason: 'no rm here',
      });
      expect(await ask(agent, home, call('c1', 'rm -rf src'))).toEqual(first);
      expect(chainRuns()).toEqual(['rm -rf src']);
      expect(state()).toEqual({ calls: 1 });
      expect(reported()).toEqual(['pre_tool_call c1', 'hook_decision c1', 'post_tool_call c1']);
    });

    it('answers the same rewrite again', async () => {
      const { home, call, chainRuns } = setup(agent);
      const first = await ask(agent, home, call('c1', 'cat a.tmp'));
      expect(decision(first)).toMatchObject({ updatedInput: { command: 'cat a.md' } });
      expect(await ask(agent, home, call('c1', 'cat a.tmp'))).toEqual(first);
      expect(chainRuns()).toEqual(['cat a.tmp']);
    });

    it('decides one call once when the same event arrives twice at the same time', async () => {
      const { home, call, chainRuns, state } = setup(agent);
      const answers = await Promise.all([
        ask(agent, home, call('c1', 'rm -rf src')),
        ask(agent, home, call('c1', 'rm -rf src')),
      ]);
      expect(answers[1]).toEqual(answers[0]);
      expect(decision(answers[0] as { stdout: string }).permissionDecision).toBe('deny');
      expect(chainRuns()).toEqual(['rm -rf src']);
      expect(state()).toEqual({ calls: 1 });
    });

    it('refuses a decided id sent again with another input, and never lends it the earlier allow', async () => {
      const { home, call, chainRuns, reported, state } = setup(agent);
      expect((await ask(agent, home, call('c1', 'ls'))).stdout).toBe('');
      const reused = await ask(agent, home, call('c1', 'rm -rf src'));
      expect(decision(reused)).toEqual({
        hookEventName: 'PreToolUse',
        permissionDecision: 'deny',
        permissionDecisionReason: expect.stringMatching(
          /tool call id "c1" was already decided in this turn for another call/,
        ),
      });
      expect(reused.stderr).toMatch(/tool call id "c1" was already decided/);
      // And another tool with the same arguments is another call too.
      const otherTool = await ask(agent, home, { ...call('c1', 'ls'), tool_name: 'Read' });
      expect(decision(otherTool)?.permissionDecision).toBe('deny');
      expect(chainRuns()).toEqual(['ls']);
      expect(state()).toEqual({ calls: 1 });
      expect(reported()).toEqual(['pre_tool_call c1']);
      // The call as first decided is still answered as it was.
      expect((await ask(agent, home, call('c1', 'ls'))).stdout).toBe('');
    });

    it('keys the record by the arguments as sent, whatever the order of their keys', async () => {
      const { home, base, chainRuns } = setup(agent);
      const event = (input: Record<string, unknown>) => ({
        ...base,
        hook_event_name: 'PreToolUse',
        tool_name: 'Bash',
        tool_use_id: 'c1',
        tool_input: input,
      });
      await ask(agent, home, event({ command: 'ls', timeout: 5 }));
      const again = await ask(agent, home, event({ timeout: 5, command: 'ls' }));
      expect(again.stdout).toBe('');
      expect(chainRuns()).toEqual(['ls']);
    });

    it('decides again a call without tool_use_id, which cannot be told apart from a new one', async () => {
      const { home, call, chainRuns, state } = setup(agent);
      await ask(agent, home, call(undefined, 'ls'));
      await ask(agent, home, call(undefined, 'ls'));
      expect(chainRuns()).toEqual(['ls', 'ls']);
      expect(state()).toEqual({ calls: 2 });
    });

    it('forgets the record with its turn: the same id in the next turn is decided afresh', async () => {
      const { home, base, call, chainRuns } = setup(agent);
      await ask(agent, home, call('c1', 'ls'));
      await ask(agent, home, { ...base, hook_event_name: 'Stop', stop_hook_active: false });
      const next = agent === 'codex' ? { turn_id: 't2' } : {};
      await ask(agent, home, {
        ...base,
        ...next,
        hook_event_name: 'UserPromptSubmit',
        prompt: 'go',
      });
      await ask(agent, home, { ...call('c1', 'ls'), ...next });
      expect(chainRuns()).toEqual(['ls', 'ls']);
    });
  },
);

describe('runCommandHook with one call twice at once (a late daemon and the fallback that answered)', () => {
  it('decides it once under the turn lock, though neither found a decision before it loaded', async () => {
    const runs: string[] = [];
    const decisions: string[] = [];
    const runtime = await createRuntime({
      logger: memoryLogger(),
      extensions: [
        ext('guard', (hermes) => {
          hermes.on('intercept_tool_call', (e) => {
            runs.push(String(e.toolCallId));
            e.state.calls = ((e.state.calls as number) ?? 0) + 1;
            return block('not now');
          });
          hermes.observe('hook_decision', (p) => decisions.push(String(p.tool_call_id)));
        }),
      ],
    });
    // Each looks for a decision before it loads, so both look before either has decided; the
    // second gets its runtime only once the first has answered.
    let firstAnswered = () => {};
    const answered = new Promise<void>((resolve) => {
      firstAnswered = resolve;
    });
    let loads = 0;
    const runtimes: RuntimeSource = {
      acquire: async () => {
        if (loads++ > 0) await answered;
        return runtime;
      },
      release: async () => {},
    };
    const home = tree();
    const event = JSON.stringify({
      session_id: 'late-daemon',
      cwd: home,
      hook_event_name: 'PreToolUse',
      tool_name: 'Bash',
      tool_input: { command: 'ls' },
      tool_use_id: 'toolu_1',
    });
    const options = { home, logger: memoryLogger(), runtimes };
    const first = runCommandHook(claudeCode, event, options);
    const second = runCommandHook(claudeCode, event, options);
    const firstAnswer = await first;
    firstAnswered();
    expect(await second).toEqual(firstAnswer);
    expect(JSON.parse(firstAnswer.stdout ?? '').hookSpecificOutput.permissionDecision).toBe('deny');
    expect(loads).toBe(2);
    expect(runs).toEqual(['toolu_1']);
    expect(decisions).toEqual(['toolu_1']);
    const stored = JSON.parse(readFileSync(join(home, 'turns', 'late-daemon.json'), 'utf8'));
    expect(stored.state).toEqual({ calls: 1 });
    await runtime.close();
  });
});
