import { createRuntime, type ExtensionDefinition } from 'hermes-extensions';
import { describe, expect, it } from 'vitest';
import { docExample, writeExample } from './doc-blocks.js';

describe("docs/chain-semantics.md's `when` example", () => {
  const file = writeExample('when-example.ts', docExample('when').text);

  it('blocks writes and edits under src/ and nothing else', async () => {
    const { default: extension } = (await import(file)) as { default: ExtensionDefinition };
    const runtime = await createRuntime({ extensions: [extension], config: { extensions: {} } });
    const call = (toolName: string, path: string) =>
      runtime.runTurn({ sessionId: 's' }, (t) =>
        t.interceptToolCall({ toolName, toolArgs: { path } }),
      );
    const blocked = await call('edit', 'src/chain/run.ts');
    expect(blocked).toMatchObject({ blocked: true, blockedBy: 'frozen-modules' });
    expect(blocked.blocked && blocked.message).toBe(
      'src/chain is frozen this week; change it in a follow-up.',
    );
    expect((await call('write', 'docs/a.md')).blocked).toBe(false);
    expect((await call('read', 'src/a.ts')).blocked).toBe(false);
    await runtime.close();
  });
});
