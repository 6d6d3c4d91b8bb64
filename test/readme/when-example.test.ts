import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRuntime, type ExtensionDefinition } from 'hermes-extensions';
import ts from 'typescript';
import { beforeAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const MARKER = '<!-- example: when';

/** The README's `when` example: the ts block right after its marker comment. */
function readmeExample(): string {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const at = readme.indexOf(MARKER);
  if (at < 0) throw new Error(`README.md has no "${MARKER}" marker`);
  const block = /```ts\n([\s\S]*?)```/.exec(readme.slice(at));
  if (!block?.[1]) throw new Error('no ts block after the marker');
  return block[1];
}

describe("the README's `when` example", () => {
  // Inside the repository, so the project's tsconfig (strict, its `paths`) applies as it is.
  const dir = join(root, 'node_modules', '.cache', 'readme-examples');
  const file = join(dir, 'when-example.ts');

  beforeAll(() => {
    mkdirSync(dir, { recursive: true });
    writeFileSync(file, readmeExample());
  });

  it('type-checks under the project settings: `event.toolArgs.path` is narrowed to a string', () => {
    const config = ts.getParsedCommandLineOfConfigFile(
      join(root, 'tsconfig.json'),
      {},
      {
        ...ts.sys,
        onUnRecoverableConfigFileDiagnostic: (d) => {
          throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n'));
        },
      },
    );
    if (!config) throw new Error('tsconfig.json could not be read');
    const program = ts.createProgram([file], config.options);
    const problems = ts
      .getPreEmitDiagnostics(program)
      .filter((d) => d.file?.fileName === file)
      .map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
    expect(problems).toEqual([]);

    // The check can fail: without `when`, the same handler does not compile.
    const unnarrowed = readmeExample().replace(/when: \{[\s\S]*?\n {8}\},\n/, '');
    const plain = join(dir, 'when-example-without-when.ts');
    writeFileSync(plain, unnarrowed);
    const without = ts
      .getPreEmitDiagnostics(ts.createProgram([plain], config.options, undefined, program))
      .filter((d) => d.file?.fileName === plain);
    expect(
      without.map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n')).join('\n'),
    ).toMatch(/'split' does not exist on type|is of type 'unknown'/);
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
