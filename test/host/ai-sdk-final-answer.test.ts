import { generateText, stepCountIs, streamText, tool } from 'ai';
import { block, createRuntime, rewrite } from 'hermes-extensions';
import { withHermes } from 'hermes-extensions/ai-sdk';
import { memoryLogger } from 'hermes-extensions/testing';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { answer, callOf, MockLanguageModel, usage } from '../support/ai-sdk-mock.js';
import { ext } from '../support/helpers.js';

// Runs against AI SDK 6 and, in the `ai-sdk-v7` project, AI SDK 7 (test/host/ai-sdk.test.ts).

const redact = (seen: string[] = []) =>
  ext('redact', (h) =>
    h.on('transform_final_answer', (e) => {
      seen.push(e.answer);
      return e.answer.includes('hunter2')
        ? rewrite(e.answer.replaceAll('hunter2', '[redacted]'))
        : undefined;
    }),
  );

const tools = {
  read: tool({ inputSchema: z.object({ path: z.string() }), execute: async () => 'contents' }),
};

/** A streamed step of text in two deltas, as a provider sends it. */
function streamedText(text: string) {
  const half = Math.floor(text.length / 2);
  const parts = [
    { type: 'stream-start', warnings: [] },
    { type: 'text-start', id: 't1' },
    { type: 'text-delta', id: 't1', delta: text.slice(0, half) },
    { type: 'text-delta', id: 't1', delta: text.slice(half) },
    { type: 'text-end', id: 't1' },
    { type: 'finish', usage, finishReason: { unified: 'stop', raw: undefined } },
  ];
  return {
    stream: new ReadableStream({
      start(controller) {
        for (const part of parts) controller.enqueue(part);
        controller.close();
      },
    }),
  };
}

async function generate(extensions: ReturnType<typeof ext>[], steps: unknown[]) {
  const runtime = await createRuntime({ extensions, logger: memoryLogger() });
  const model = new MockLanguageModel({ doGenerate: steps as never });
  const result = await runtime.runTurn({ sessionId: 's' }, async (turn) => {
    const call = await withHermes(turn, { prompt: 'go', model, tools });
    return generateText({ ...call, stopWhen: stepCountIs(4) });
  });
  await runtime.close();
  return result;
}

describe('transform_final_answer in the AI SDK', () => {
  it("rewrites generateText's answer, judging only the step without tool calls", async () => {
    const seen: string[] = [];
    const result = await generate(
      [redact(seen)],
      [callOf('read', 'c1', { path: 'a' }), answer('The password is hunter2.')],
    );
    expect(result.text).toBe('The password is [redacted].');
    expect(seen).toEqual(['The password is hunter2.']);
  });

  it('withholds a blocked answer: the user gets the block message', async () => {
    const result = await generate(
      [
        ext('no-answers', (h) =>
          h.on('transform_final_answer', () => block('withheld: review first')),
        ),
      ],
      [answer('Here is everything.')],
    );
    expect(result.text).toBe('withheld: review first');
  });

  it('fails closed when the gate throws', async () => {
    const result = await generate(
      [
        ext('broken-gate', (h) =>
          h.on('transform_final_answer', () => {
            throw new Error('checker down');
          }),
        ),
      ],
      [answer('secret answer')],
    );
    expect(result.text).not.toContain('secret answer');
    expect(result.text).toMatch(/broken-gate.*checker down/);
  });

  it('holds a streamed answer until its end: no chunk of the original reaches the reader', async () => {
    const runtime = await createRuntime({ extensions: [redact()], logger: memoryLogger() });
    const model = new MockLanguageModel({
      doStream: streamedText('The password is hunter2.') as never,
    });
    const chunks: string[] = [];
    await runtime.runTurn({ sessionId: 's' }, async (turn) => {
      const call = await withHermes(turn, { prompt: 'go', model, tools });
      const result = streamText({ ...call, stopWhen: stepCountIs(2) });
      for await (const chunk of result.textStream) chunks.push(chunk);
    });
    await runtime.close();
    expect(chunks.join('')).toBe('The password is [redacted].');
    expect(chunks.join('')).not.toContain('hunter2');
  });

  it('streams as the provider sends when no handler gates answers', async () => {
    const runtime = await createRuntime({ extensions: [], logger: memoryLogger() });
    const model = new MockLanguageModel({ doStream: streamedText('abcdef') as never });
    const chunks: string[] = [];
    await runtime.runTurn({ sessionId: 's' }, async (turn) => {
      const call = await withHermes(turn, { prompt: 'go', model, tools });
      for await (const chunk of streamText({ ...call }).textStream) chunks.push(chunk);
    });
    expect(chunks).toEqual(['abc', 'def']);
  });
});
