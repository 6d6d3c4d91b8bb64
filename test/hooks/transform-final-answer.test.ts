import {
  block,
  type HookOutcomeReport,
  type ObserverPayload,
  rewrite,
  runConversation,
  subagentTool,
  type Tools,
} from 'hermes-extensions';
import { scriptedModel, toolCall } from 'hermes-extensions/testing';
import { describe, expect, it } from 'vitest';
import { ext, inTurn, runtimeOf } from '../support/helpers.js';

const base = { sessionId: 's', systemPrompt: 'You are an agent.', userMessage: 'fix it' };
const bash: Tools = { bash: { execute: ({ command }) => `ran ${command}` } };

/**
 * "No unverified claims": an answer that says the tests pass is withheld unless the turn ran
 * them. What the turn did is kept in its state by the tool-call chain, and read by the gate.
 */
const verifiedClaims = ext('verified-claims', (h) => {
  const ran = h.turnState(() => ({ tests: false }));
  h.on('intercept_tool_call', (e) => {
    if (/\bnpm test\b/.test(String(e.toolArgs.command))) ran(e).tests = true;
  });
  h.on('transform_final_answer', (e) =>
    /tests pass/i.test(e.answer) && !ran(e).tests
      ? block('The answer says the tests pass, but no test ran in this turn.')
      : undefined,
  );
});

describe('transform_final_answer in the reference loop', () => {
  it('withholds an answer that claims what the turn did not do, and keeps it out of the history', async () => {
    const { runtime } = await runtimeOf([verifiedClaims]);
    const result = await runConversation({
      ...base,
      runtime,
      tools: bash,
      model: scriptedModel([{ content: 'Fixed; the tests pass.' }]),
    });
    expect(result.blocked).toBe(true);
    expect(result.finalResponse).toBe(
      'The answer says the tests pass, but no test ran in this turn.',
    );
    expect(JSON.stringify(result.messages)).not.toContain('Fixed; the tests pass.');
    expect(result.messages.at(-1)).toEqual({
      role: 'assistant',
      content: 'The answer says the tests pass, but no test ran in this turn.',
    });
  });

  it('lets the same answer through when the turn ran the tests', async () => {
    const { runtime } = await runtimeOf([verifiedClaims]);
    const result = await runConversation({
      ...base,
      runtime,
      tools: bash,
      model: scriptedModel([
        { content: 'Testing.', toolCalls: [toolCall('bash', { command: 'npm test' })] },
        { content: 'Fixed; the tests pass.' },
      ]),
    });
    expect(result).toMatchObject({ blocked: false, finalResponse: 'Fixed; the tests pass.' });
  });

  it('rewrites the answer and the history, reports it, and leaves earlier turns alone', async () => {
    const decisions: ObserverPayload[] = [];
    const reports: HookOutcomeReport[] = [];
    const { runtime } = await runtimeOf([
      ext('redact', (h) =>
        h.on('transform_final_answer', (e) =>
          rewrite(e.answer.replaceAll('hunter2', '[redacted]')),
        ),
      ),
      ext('decisions', (h) => h.observe('hook_decision', (p) => decisions.push(p))),
    ]);
    const history = [
      { role: 'user' as const, content: 'earlier' },
      { role: 'assistant' as const, content: 'the old password was hunter2' },
    ];
    const result = await runConversation({
      ...base,
      runtime,
      tools: bash,
      history,
      model: scriptedModel([{ content: 'The password is hunter2.' }]),
      onHookOutcome: (r) => reports.push(r),
    });
    await runtime.close();
    expect(result.finalResponse).toBe('The password is [redacted].');
    expect(result.messages.at(-1)?.content).toBe('The password is [redacted].');
    expect(result.messages[1]).toEqual(history[1]);
    expect(reports.map((r) => r.hook)).toContain('transform_final_answer');
    expect(decisions).toEqual([
      expect.objectContaining({ hook: 'transform_final_answer', changed: true }),
    ]);
  });

  it('fails closed: a checker that throws withholds the answer, naming itself', async () => {
    const { runtime } = await runtimeOf([
      ext('broken-checker', (h) =>
        h.on('transform_final_answer', () => {
          throw new Error('policy file unreadable');
        }),
      ),
    ]);
    const result = await runConversation({
      ...base,
      runtime,
      tools: bash,
      model: scriptedModel([{ content: 'secret answer' }]),
    });
    expect(result.blocked).toBe(true);
    expect(result.finalResponse).toMatch(/broken-checker.*policy file unreadable/);
    expect(JSON.stringify(result.messages)).not.toContain('secret answer');
  });

  it("gates only the main agent's answer: a subagent's goes to its parent's model as it was", async () => {
    const seen: string[] = [];
    const { runtime } = await runtimeOf([
      ext('gate', (h) =>
        h.on('transform_final_answer', (e) => {
          seen.push(e.answer);
          return rewrite(`checked: ${e.answer}`);
        }),
      ),
    ]);
    const subModel = scriptedModel([{ content: 'worker result' }]);
    const model = scriptedModel([
      { content: '', toolCalls: [toolCall('delegate', { task: 'look' }, 'd1')] },
      { content: 'all done' },
    ]);
    const result = await runConversation({
      ...base,
      runtime,
      model,
      tools: {
        delegate: subagentTool({
          type: 'worker',
          async execute({ task }, { runSubagent }) {
            const run = await runSubagent({
              id: 'w1',
              prompt: String(task),
              systemPrompt: 'worker',
              model: subModel,
              tools: {},
            });
            return run.finalResponse;
          },
        }),
      },
    });
    expect(seen).toEqual(['all done']);
    expect(result.toolCalls[0]?.result).toBe('worker result');
    expect(result.finalResponse).toBe('checked: all done');
  });

  it('does not run for a turn a request block ended: that answer is the block message', async () => {
    let ran = 0;
    const { runtime } = await runtimeOf([
      ext('stop', (h) => h.on('before_llm_call', () => block('no model today'))),
      ext('gate', (h) =>
        h.on('transform_final_answer', () => {
          ran++;
        }),
      ),
    ]);
    const result = await runConversation({
      ...base,
      runtime,
      tools: bash,
      model: scriptedModel([]),
    });
    expect(result.finalResponse).toBe('no model today');
    expect(ran).toBe(0);
  });

  it('names the hook in a payload error', async () => {
    const { runtime } = await runtimeOf([verifiedClaims]);
    await expect(
      inTurn(runtime, (turn) => turn.transformFinalAnswer(42 as unknown as string)),
    ).rejects.toThrow(/transformFinalAnswer\(answer\)/);
  });
});
