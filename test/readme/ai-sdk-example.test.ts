import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const MARKER = '<!-- example: ai-sdk';

/** The README's AI SDK example: the ts block right after its marker comment. */
function readmeExample(): string {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const at = readme.indexOf(MARKER);
  if (at < 0) throw new Error(`README.md has no "${MARKER}" marker`);
  const block = /```ts\n([\s\S]*?)```/.exec(readme.slice(at));
  if (!block?.[1]) throw new Error('no ts block after the marker');
  return block[1];
}

/** What the example takes from the host around it. */
const HOST = `
import type { LanguageModelV3 } from '@ai-sdk/provider';
import type { ToolSet } from 'ai';
import type { Runtime } from 'hermes-extensions';
declare const runtime: Runtime;
declare const sessionId: string;
declare const prompt: string;
declare const model: LanguageModelV3;
declare const tools: ToolSet;
export {};
`;

/** The type errors of `source`, checked under the project's tsconfig (strict, its `paths`). */
function typeErrors(name: string, source: string): string[] {
  // Inside the repository, so `ai` and the framework resolve as they do for the tests.
  const dir = join(root, 'node_modules', '.cache', 'readme-examples');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, name);
  writeFileSync(file, source);
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
  return ts
    .getPreEmitDiagnostics(ts.createProgram([file], config.options))
    .filter((d) => d.file?.fileName === file)
    .map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
}

describe("the README's AI SDK example", () => {
  it("type-checks under strict TypeScript: a blocked call's message is a string", () => {
    const example = readmeExample();
    expect(example).toContain('const answer: string = await runtime.runTurn');
    expect(typeErrors('ai-sdk-example.ts', HOST + example)).toEqual([]);
  }, 60_000);
});
