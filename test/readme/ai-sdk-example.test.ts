import { describe, expect, it } from 'vitest';
import { docExample, typeErrors, writeExample } from './doc-blocks.js';

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

describe("the README's AI SDK example", () => {
  it("type-checks under strict TypeScript: a blocked call's message is a string", () => {
    const example = docExample('ai-sdk').text;
    expect(example).toContain('const answer: string = await runtime.runTurn');
    expect(typeErrors(writeExample('ai-sdk-example.ts', HOST + example))).toEqual([]);
  }, 60_000);
});
