import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { block, createRuntime, type ExtensionDefinition, rewrite } from 'hermes-extensions';
import { memoryLogger } from 'hermes-extensions/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { type CommandHookAgent, claudeCode, codex } from '../../../src/host/command-hook/agents.js';
import { MAX_ANSWER_BLOCKS } from '../../../src/host/command-hook/final-answer-gate.js';
import { runCommandHook } from '../../../src/host/command-hook/run-hook.js';
import type { RuntimeSource } from '../../../src/host/command-hook/runtime-source.js';
import { answerSchema } from '../../support/agent-answers.js';
import { tree } from '../../support/fixtures.js';
import { ext } from '../../support/helpers.js';

/**
 * transform_final_answer at the main agent's `Stop` (final-answer-gate.ts): the agent has shown
 * the answer already, so a block keeps it going with the reason, within the turn (its state
 * kept), at most MAX_ANSWER_BLOCKS times in a row; a rewrite cannot be applied and the user is
 * told. Run in process, with every answer checked against the agent's strict schema.
 */
async function setup(agent: CommandHookAgent, extensions: ExtensionDefinition[]) {
  const runtime = await createRuntime({ logger: memoryLogger(), extensions });
  const runtimes: RuntimeSource = { acquire: async () => runtime, release: async () => {} };
  const home = tree();
  const session = `${agent.name}-final-answer`;
  const base = {
    session_id: session,
    cwd: home,
    ...(agent.name === 'codex' ? { turn_id: 'turn-1', model: 'gpt-5.5' } : {}),
  };
  const send = async (event: Record<string, unknown>) => {
    const answer = await runCommandHook(agent, JSON.stringify({ ...base, ...event }), {
      home,
      logger: memoryLogger(),
      runtimes,
    });
    if (!answer.stdout) return undefined;
    const output = JSON.parse(answer.stdout) as Record<string, unknown>;
    const name = String(event.hook_event_name);
    const checked = answerSchema(agent.name, name).safeParse(output);
    expect(checked.error?.issues, `${name}: ${answer.stdout}`).toBeUndefined();
    return output;
  };
  const prompt = () => send({ hook_event_name: 'UserPromptSubmit', prompt: 'fix the bug' });
  const bash = (command: string, id: string) =>
    send({
      hook_event_name: 'PreToolUse',
      tool_name: 'Bash',
      tool_input: { command },
      tool_use_id: id,
    });
  const stop = (answer: string | undefined, extra: Record<string, unknown> = {}) =>
    send({
      hook_event_name: 'Stop',
      stop_hook_active: false,
      ...(answer === undefined ? {} : { last_assistant_message: answer }),
      ...extra,
    });
  const turnFile = join(home, 'turns', `${encodeURIComponent(session)}.json`);
  cleanups.push(() => runtime.close());
  return { prompt, bash, stop, turnOpen: () => existsSync(turnFile) };
}

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

/** Withholds "tests pass" unless the turn ran `npm test` (kept in the turn's state between processes). */
const verifiedClaims = ext('verified-claims', (h) => {
  h.on('intercept_tool_call', (e) => {
    if (/\bnpm test\b/.test(String(e.toolArgs.command))) e.state.tested = true;
  });
  h.on('transform_final_answer', (e) =>
    /tests pass/i.test(e.answer) && e.state.tested !== true
      ? block('you said the tests pass, but none ran: run npm test first')
      : undefined,
  );
});

describe.each([claudeCode, codex])('transform_final_answer at $title Stop', (agent) => {
  it('keeps the agent going with the reason, in the same turn, until the claim holds', async () => {
    const hook = await setup(agent, [verifiedClaims]);
    await hook.prompt();
    expect(await hook.stop('Fixed; the tests pass.')).toEqual({
      decision: 'block',
      reason:
        'Your answer was not accepted (verified-claims): you said the tests pass, but none ran: run npm test first',
    });
    // The turn goes on: its state is still there for the next call and the next Stop.
    expect(hook.turnOpen()).toBe(true);
    await hook.bash('npm test', 'c1');
    expect(await hook.stop('Fixed; the tests pass.', { stop_hook_active: true })).toBeUndefined();
    expect(hook.turnOpen()).toBe(false);
  });

  it(`lets the agent stop after ${MAX_ANSWER_BLOCKS} blocks in a row, and says why`, async () => {
    const hook = await setup(agent, [
      ext('never', (h) => h.on('transform_final_answer', () => block('not good enough'))),
    ]);
    await hook.prompt();
    for (let i = 0; i < MAX_ANSWER_BLOCKS; i++) {
      expect(await hook.stop('an answer', { stop_hook_active: i > 0 })).toMatchObject({
        decision: 'block',
      });
    }
    const last = await hook.stop('an answer', { stop_hook_active: true });
    expect(last?.decision).toBeUndefined();
    expect(String(last?.systemMessage)).toMatch(
      new RegExp(`never did not accept the answer ${MAX_ANSWER_BLOCKS} times in a row`),
    );
    expect(hook.turnOpen()).toBe(false);
  });

  it('tells the user of a rewrite it cannot apply, and stops', async () => {
    const hook = await setup(agent, [
      ext('redact', (h) =>
        h.on('transform_final_answer', (e) => rewrite(e.answer.replaceAll('hunter2', '***'))),
      ),
    ]);
    await hook.prompt();
    const answer = await hook.stop('the password is hunter2');
    expect(answer?.decision).toBeUndefined();
    expect(String(answer?.systemMessage)).toContain(
      'redact would have shown this answer instead; ' +
        `${agent.title} shows the model's own: the password is ***`,
    );
    expect(hook.turnOpen()).toBe(false);
  });

  it('fails closed: a gate that throws keeps the agent going, naming itself', async () => {
    const hook = await setup(agent, [
      ext('broken-gate', (h) =>
        h.on('transform_final_answer', () => {
          throw new Error('rules missing');
        }),
      ),
    ]);
    await hook.prompt();
    const answer = await hook.stop('done');
    expect(answer?.decision).toBe('block');
    expect(String(answer?.reason)).toMatch(/broken-gate.*rules missing/);
  });

  it("never gates a subagent's stop as the main agent's answer", async () => {
    const hook = await setup(agent, [
      ext('never', (h) => h.on('transform_final_answer', () => block('not good enough'))),
    ]);
    await hook.prompt();
    const answer = await hook.stop('subagent result', {
      agent_id: 'sub-1',
      agent_type: 'worker',
    });
    expect(answer?.decision).toBeUndefined();
  });

  it('says so when the agent sends no answer to judge', async () => {
    const hook = await setup(agent, [verifiedClaims]);
    await hook.prompt();
    const answer = await hook.stop(undefined);
    expect(String(answer?.systemMessage)).toMatch(/sent no last_assistant_message/);
  });
});
