import { injectSystem } from 'hermes-extensions';
import { describe, expect, it } from 'vitest';
import { ext, inTurn, runtimeOf } from '../support/helpers.js';

describe('injectSystem', () => {
  it('into an empty system prompt gives the injected text alone, with no leading blank line', async () => {
    const { runtime } = await runtimeOf([
      ext('first', (h) => h.on('before_llm_call', () => injectSystem('Plan first.'))),
      ext('second', (h) => h.on('before_llm_call', () => injectSystem('Be brief.'))),
    ]);
    const outcome = await inTurn(runtime, (turn) =>
      turn.beforeLlmCall({ systemPrompt: '', messages: [{ role: 'user', content: 'hi' }] }),
    );
    expect(outcome.value.systemPrompt).toBe('Plan first.\n\nBe brief.');
  });

  it('after a system prompt, follows it after a blank line', async () => {
    const { runtime } = await runtimeOf([
      ext('first', (h) => h.on('before_llm_call', () => injectSystem('Plan first.'))),
    ]);
    const outcome = await inTurn(runtime, (turn) =>
      turn.beforeLlmCall({ systemPrompt: 'Base.', messages: [] }),
    );
    expect(outcome.value.systemPrompt).toBe('Base.\n\nPlan first.');
  });
});
