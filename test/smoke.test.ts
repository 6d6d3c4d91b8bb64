import { expect, test } from 'vitest';
import { block, createRuntime, defineExtension, rewrite } from 'hermes-extensions';

test('smoke', async () => {
  const ext = defineExtension({
    name: 'a',
    setup(h) {
      h.on('intercept_tool_call', (e) => (e.toolName === 'write' ? block('no') : undefined));
      h.on('transform_user_input', (e) => rewrite(`/x ${e.userMessage}`));
    },
  });
  const rt = await createRuntime({ extensions: [ext] });
  await rt.runTurn({ sessionId: 's' }, async (turn) => {
    const o = await turn.interceptToolCall({ toolName: 'write', toolArgs: { path: 'a' } });
    expect(o.blocked).toBe(true);
    const u = await turn.transformUserInput('hi');
    expect(u.value).toBe('/x hi');
  });
});
