import { createRuntime, type ExtensionDefinition } from 'hermes-extensions';
import { describe, expect, it } from 'vitest';
import { tree } from '../support/fixtures.js';
import { docExample, writeExample } from './doc-blocks.js';

/** A recipe of docs/writing-guards.md, written where the project's tests are, and imported. */
async function recipe(name: string): Promise<{ file: string; extension: ExtensionDefinition }> {
  const file = writeExample(`${name}.ts`, docExample(name).text);
  const { default: extension } = (await import(file)) as { default: ExtensionDefinition };
  return { file, extension };
}

describe("docs/writing-guards.md's guard that refuses dangerous shell commands", () => {
  const REFUSED = [
    'rm -r -f build',
    'rm -rf /',
    'rm -Rf x',
    'rm --recursive --force x',
    'sudo rm -rf /',
    'sudo -u root rm -fr x',
    'nohup rm -rf x',
    '/bin/rm -rf x',
    "bash -c 'rm -rf x'",
    'find . -name "*.tmp" | xargs rm -rf',
    'timeout 5 env rm -rf x',
    'if true; then rm -rf x; fi',
    'echo $(rm -rf x)',
    'git push --force',
    'git push -f origin main',
    'git push --force-with-lease',
    'git push origin +main',
    'cd sub && git push --force',
  ];
  const PASSED = [
    'rm -r build',
    'rm -f a.txt',
    'git push',
    'git push -u origin main',
    'echo "rm -rf /"',
    'ls -rf',
    'git commit -m "push -f"',
  ];

  it('blocks rm -r -f in any spelling, behind sudo and wrappers, and git push --force; passes the rest', async () => {
    const { extension } = await recipe('guard-shell');
    const runtime = await createRuntime({
      extensions: [extension],
      cwd: tree({ 'sub/.keep': '' }),
    });
    const blocked = async (command: string) => {
      const outcome = await runtime.runTurn({ sessionId: command }, (turn) =>
        turn.interceptToolCall({ toolName: 'bash', toolArgs: { command } }),
      );
      return outcome.blocked;
    };
    const results = async (commands: string[]) =>
      Object.fromEntries(await Promise.all(commands.map(async (c) => [c, await blocked(c)])));
    expect(await results(REFUSED)).toEqual(Object.fromEntries(REFUSED.map((c) => [c, true])));
    expect(await results(PASSED)).toEqual(Object.fromEntries(PASSED.map((c) => [c, false])));
    // A line the parser cannot read is refused: it could hide any of them.
    expect(await blocked('rm -rf "x')).toBe(true);
    await runtime.close();
  });
});

describe("docs/writing-guards.md's guard that asks before protected files change", () => {
  it('asks for writes and edits of protected files and folders, and for nothing else', async () => {
    const { extension } = await recipe('guard-protected-files');
    const runtime = await createRuntime({
      extensions: [extension],
      config: { extensions: { 'protected-files': { protected: ['package.json', 'infra/'] } } },
    });
    const call = (toolName: string, path: string) =>
      runtime.runTurn({ sessionId: 's' }, (turn) =>
        turn.interceptToolCall({ toolName, toolArgs: { path, content: 'x' } }),
      );
    /** Who asked about the call; 'blocked' when it was blocked instead. */
    const askedBy = async (toolName: string, path: string) => {
      const outcome = await call(toolName, path);
      return outcome.blocked ? 'blocked' : outcome.ask?.askedBy;
    };
    const asked = await call('edit', 'package.json');
    expect(asked).toMatchObject({
      blocked: false,
      ask: { message: 'package.json is protected: approve this edit?', askedBy: 'protected-files' },
    });
    expect(await askedBy('write', 'infra/main.tf')).toBe('protected-files');
    expect(await askedBy('write', 'src/package.json')).toBeUndefined();
    expect(await askedBy('read', 'package.json')).toBeUndefined();
    expect(await askedBy('write', '.env')).toBeUndefined(); // not in this config's list
    await runtime.close();
  });
});
