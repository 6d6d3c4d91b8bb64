import type { ChatMessage } from 'hermes-extensions';
import { injectSystem, injectUser, rewrite, runConversation } from 'hermes-extensions';
import { scriptedModel, toolCall } from 'hermes-extensions/testing';
import { describe, expect, it } from 'vitest';
import { ext, runtimeOf } from '../support/helpers.js';

describe('before_llm_call injections are ephemeral', () => {
  it('never mutate the host messages or prompt', async () => {
    const { runtime } = await runtimeOf([
      ext('inject', (h) => {
        h.on('before_llm_call', () => injectSystem('Guardrail.'));
        h.on('before_llm_call', () => injectUser('Reminder.'));
      }),
    ]);
    const messages: ChatMessage[] = [{ role: 'user', content: 'hi' }];
    const systemPrompt = 'Base.';
    await runtime.runTurn({ sessionId: 's' }, async (turn) => {
      for (let iteration = 0; iteration < 3; iteration++) {
        const outcome = await turn.beforeLlmCall({ systemPrompt, messages, iteration });
        // The same single injection every time, never piling up.
        expect(outcome.value.systemPrompt).toBe('Base.\n\nGuardrail.');
        expect(outcome.value.messages).toEqual([
          { role: 'user', content: 'hi' },
          { role: 'user', content: 'Reminder.' },
        ]);
      }
    });
    expect(messages).toEqual([{ role: 'user', content: 'hi' }]);
  });

  it('do not pile up across the iterations of the reference loop', async () => {
    const { runtime } = await runtimeOf([
      ext('inject', (h) => {
        h.on('before_llm_call', (e) => injectSystem(`Iteration ${e.iteration}.`));
        h.on('before_llm_call', () => injectUser('Plan first.'));
      }),
    ]);
    const model = scriptedModel([
      { content: '', toolCalls: [toolCall('read', { path: 'a' })] },
      { content: '', toolCalls: [toolCall('read', { path: 'b' })] },
      { content: 'done' },
    ]);
    const result = await runConversation({
      runtime,
      sessionId: 's',
      userMessage: 'look around',
      systemPrompt: 'Base.',
      model,
      tools: { read: { execute: ({ path }) => `contents of ${path}` } },
    });
    expect(model.requests.map((r) => r.systemPrompt)).toEqual([
      'Base.\n\nIteration 0.',
      'Base.\n\nIteration 1.',
      'Base.\n\nIteration 2.',
    ]);
    for (const request of model.requests) {
      expect(request.messages.filter((m) => m.content === 'Plan first.')).toHaveLength(1);
      expect(request.messages.at(-1)).toEqual({ role: 'user', content: 'Plan first.' });
    }
    expect(result.messages.some((m) => m.content === 'Plan first.')).toBe(false);
  });

  it('a rewrite of messages shapes this request only', async () => {
    const { runtime } = await runtimeOf([
      ext('redact', (h) =>
        h.on('before_llm_call', (e) =>
          rewrite({
            messages: e.messages.map((m) => ({
              ...m,
              content: m.content.replace(/sk-\w+/g, '[key]'),
            })),
          }),
        ),
      ),
    ]);
    const messages: ChatMessage[] = [{ role: 'user', content: 'my key is sk-abc123' }];
    const outcome = await runtime.runTurn({ sessionId: 's' }, (t) =>
      t.beforeLlmCall({ systemPrompt: 's', messages }),
    );
    expect(outcome.value.messages[0]?.content).toBe('my key is [key]');
    expect(outcome.value.systemPrompt).toBe('s');
    expect(messages[0]?.content).toBe('my key is sk-abc123');
  });

  it('passes iteration and model to handlers', async () => {
    const seen: unknown[] = [];
    const { runtime } = await runtimeOf([
      ext('spy', (h) => h.on('before_llm_call', (e) => void seen.push([e.iteration, e.model]))),
    ]);
    await runtime.runTurn({ sessionId: 's' }, async (t) => {
      await t.beforeLlmCall({ systemPrompt: '', messages: [] });
      await t.beforeLlmCall({ systemPrompt: '', messages: [], iteration: 3, model: 'gpt-x' });
    });
    expect(seen).toEqual([
      [0, undefined],
      [3, 'gpt-x'],
    ]);
  });
});
