import { generateText, stepCountIs, tool } from 'ai';
import { block, createRuntime, type ObserverPayload, rewrite } from 'hermes-extensions';
import { withHermes } from 'hermes-extensions/ai-sdk';
import { mapStrings } from 'hermes-extensions/policy';
import { memoryLogger } from 'hermes-extensions/testing';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { answer, callOf, MockLanguageModel } from '../support/ai-sdk-mock.js';
import { ext } from '../support/helpers.js';

// Runs against AI SDK 6 and, in the `ai-sdk-v7` project, AI SDK 7 (test/host/ai-sdk.test.ts).

const SECRET = 'sk-live-0123456789';

const redactor = ext('redact', (h) =>
  h.on('transform_tool_result', (event) => {
    const redacted = mapStrings(event.result, (s) => s.replaceAll(SECRET, '[redacted]'));
    return redacted === event.result ? undefined : rewrite(redacted);
  }),
);

/** One generateText run whose model calls `env` once, then answers; what the model was sent back. */
async function run(extensions: ReturnType<typeof ext>[], execute: () => unknown) {
  const observed: ObserverPayload[] = [];
  const runtime = await createRuntime({
    extensions: [
      ...extensions,
      ext('observer', (h) => h.observe('post_tool_call', (p) => void observed.push(p))),
    ],
    logger: memoryLogger(),
  });
  const tools = {
    env: tool({ inputSchema: z.object({}), execute: execute as () => Promise<unknown> }),
  };
  const model = new MockLanguageModel({
    doGenerate: [callOf('env', 'c1', {}), answer('Done.')],
  });
  const result = await runtime.runTurn({ sessionId: 's' }, async (turn) => {
    const call = await withHermes(turn, { prompt: 'show the env', model, tools });
    return generateText({ ...call, stopWhen: stepCountIs(3) });
  });
  await runtime.close();
  const sentBack = JSON.stringify(
    model.doGenerateCalls[1]?.prompt.filter((m) => m.role === 'tool') ?? [],
  );
  return { result, sentBack, observed };
}

describe('transform_tool_result in the AI SDK, around execute', () => {
  it('rewrites an object result before the model (and observers) see it', async () => {
    const { sentBack, observed, result } = await run([redactor], async () => ({
      stdout: `TOKEN=${SECRET}`,
    }));
    expect(sentBack).toContain('TOKEN=[redacted]');
    expect(sentBack).not.toContain(SECRET);
    expect(JSON.stringify(observed)).not.toContain(SECRET);
    // The SDK's own record of the step holds the rewritten output as well.
    expect(JSON.stringify(result.steps)).not.toContain(SECRET);
  });

  it('puts the refusal in place of a blocked result', async () => {
    const hide = ext('hide', (h) =>
      h.on('transform_tool_result', () => block('no environment dumps'), { tools: ['env'] }),
    );
    const { sentBack } = await run([hide], async () => `TOKEN=${SECRET}`);
    expect(sentBack).not.toContain(SECRET);
    expect(sentBack).toMatch(/no environment dumps.*blocked_by_extension.*hide/);
  });

  it('redacts the message of a tool that throws, which the model reads as the tool error', async () => {
    const { sentBack, observed } = await run([redactor], async () => {
      throw new Error(`could not connect with ${SECRET}`);
    });
    expect(sentBack).toContain('could not connect with [redacted]');
    expect(sentBack).not.toContain(SECRET);
    expect(JSON.stringify(observed)).not.toContain(SECRET);
  });

  it('fails closed when the redactor throws: the result is refused, the secret stays out', async () => {
    const broken = ext('broken', (h) =>
      h.on('transform_tool_result', () => {
        throw new Error('rules failed to load');
      }),
    );
    const { sentBack } = await run([broken], async () => `TOKEN=${SECRET}`);
    expect(sentBack).not.toContain(SECRET);
    expect(sentBack).toMatch(/rules failed to load.*blocked_by_extension.*broken/);
  });

  it('a Buffer or Uint8Array result reaches the redactor, and the model, as its UTF-8 text', async () => {
    for (const bytes of [
      () => Buffer.from(`TOKEN=${SECRET}\n`),
      () => ({ stdout: new TextEncoder().encode(`TOKEN=${SECRET}\n`) }),
      () => new TextEncoder().encode(`TOKEN=${SECRET}\n`).buffer,
    ]) {
      const { sentBack, observed } = await run([redactor], async () => bytes());
      expect(sentBack).toContain('TOKEN=[redacted]');
      expect(sentBack).not.toContain(SECRET);
      expect(JSON.stringify(observed)).not.toContain(SECRET);
      // 84 is "T": no byte numbers reach the model.
      expect(sentBack).not.toMatch(/\b84,/);
    }
  });

  it('binary data that is not UTF-8 text is refused as the tool failing, never sent as bytes', async () => {
    const { sentBack } = await run([redactor], async () => Buffer.from([0xff, 0xfe, 0x41, 0x42]));
    expect(sentBack).toMatch(/binary data .*not UTF-8 text/);
    expect(sentBack).not.toMatch(/255/);
  });

  it('a secret that is an object key is redacted too', async () => {
    const { sentBack } = await run([redactor], async () => ({ [SECRET]: 'set' }));
    expect(sentBack).toContain('[redacted]');
    expect(sentBack).not.toContain(SECRET);
  });
});
