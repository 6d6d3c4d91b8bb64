import { createRuntime, type ExtensionDefinition } from 'hermes-extensions';
import { describe, expect, it } from 'vitest';
import { docExample, typeErrors, writeExample } from './doc-blocks.js';

describe("the README's `when` example", () => {
  const file = writeExample('when-example.ts', docExample('when').text);

  it('type-checks under the project settings: `event.toolArgs.path` is narrowed to a string', () => {
    expect(typeErrors(file)).toEqual([]);
    // The check can fail: without `when`, the same handler does not compile.
    const unnarrowed = docExample('when').text.replace(/when: \{[\s\S]*?\n {8}\},\n/, '');
    expect(typeErrors(writeExample('when-example-without-when.ts', unnarrowed)).join('\n')).toMatch(
      /'split' does not exist on type|is of type 'unknown'/,
    );
  }, 60_000);

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
