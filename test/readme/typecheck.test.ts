import { describe, expect, it } from 'vitest';
import {
  allDocBlocks,
  type DocBlock,
  docExample,
  typeErrorsOf,
  writeExample,
} from './doc-blocks.js';

/**
 * Every TypeScript block of the docs that is type-checked, in one program (one program costs
 * about what one file costs: the framework's types are most of the work): each named example with
 * what it takes from the code around it, and each `check: typecheck` block as a module of its own.
 */

/** What the AI SDK example (docs/hosts.md) takes from the host around it. */
const AI_SDK_HOST = `
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

/** The named examples that are type-checked, each with the code it needs around it. */
const NAMED: Record<string, string> = {
  'ai-sdk': AI_SDK_HOST,
  when: '',
  sandbox: '',
  'guard-shell': '',
  'guard-protected-files': '',
};

/** The `when` example without its `when`: the same handler must not compile. */
const WITHOUT_WHEN = 'when-without-when';

describe('the TypeScript of the docs, under the project settings (strict)', () => {
  const checked: Array<{ label: string; block?: DocBlock; file: string }> = [
    ...Object.entries(NAMED).map(([name, prelude]) => ({
      label: name,
      file: writeExample(`typecheck-${name}.ts`, prelude + docExample(name).text),
    })),
    ...allDocBlocks()
      .filter((block) => block.marker === 'check: typecheck')
      .map((block, n) => ({
        label: `${block.page}:${block.line}`,
        block,
        file: writeExample(`typecheck-block-${n}.ts`, `${block.text}\nexport {};\n`),
      })),
  ];
  const unnarrowed = writeExample(
    `typecheck-${WITHOUT_WHEN}.ts`,
    docExample('when').text.replace(/when: \{[\s\S]*?\n {8}\},\n/, ''),
  );
  let errors: Map<string, string[]> | undefined;
  const errorsOf = (file: string) => {
    errors ??= typeErrorsOf([...checked.map((c) => c.file), unnarrowed]);
    return errors.get(file) ?? [];
  };

  it('finds the blocks: the named examples and at least one `check: typecheck` block', () => {
    expect(checked.filter((c) => c.block !== undefined).length).toBeGreaterThan(0);
    expect(docExample('ai-sdk').text).toContain('const answer: string = await runtime.runTurn');
  });

  it('every one type-checks: a blocked call’s message is a string, `when` narrows the event', () => {
    expect(Object.fromEntries(checked.map((c) => [c.label, errorsOf(c.file)]))).toEqual(
      Object.fromEntries(checked.map((c) => [c.label, []])),
    );
  }, 180_000);

  it('can fail: without `when`, the `when` example does not compile', () => {
    expect(errorsOf(unnarrowed).join('\n')).toMatch(
      /'split' does not exist on type|is of type 'unknown'/,
    );
  }, 180_000);
});
