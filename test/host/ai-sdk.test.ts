import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { APICallError } from '@ai-sdk/provider';
import { generateText, stepCountIs, streamText, tool } from 'ai';
import * as aiTest from 'ai/test';
import { block, createRuntime, injectSystem, rewrite } from 'hermes-extensions';
import { withHermes } from 'hermes-extensions/ai-sdk';
import { memoryLogger } from 'hermes-extensions/testing';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import workflowGuard from '../../extensions/workflow-guard/index.js';
import { answer, callOf, MockLanguageModel, usage } from '../support/ai-sdk-mock.js';
import { tree, write } from '../support/fixtures.js';
import { ext } from '../support/helpers.js';
import { root } from '../support/run-bin.js';

// The same tests run against AI SDK 6 and, in the `ai-sdk-v7` project, AI SDK 7, whose own
// models implement specification v4: the mock is the SDK's newest.

if (process.env.AI_SDK_MAJOR !== '7' && !existsSync(join(root, 'test/ai-sdk-v7/node_modules/ai'))) {
  console.warn(
    'test/host/ai-sdk.test.ts: AI SDK 7 is not installed, so these tests run against AI SDK 6 only (npm run setup:ai7)',
  );
}

it('runs against the AI SDK its project names', () => {
  const v7 = 'MockLanguageModelV4' in aiTest;
  expect(v7).toBe(process.env.AI_SDK_MAJOR === '7');
});

const writeCall = (id: string, path: string) => callOf('write', id, { path, content: '# x' });

describe('hermes-extensions/ai-sdk with the real generateText loop', () => {
  it('runs workflow-guard: the edit is blocked, the plan written, the same edit then runs', async () => {
    const project = tree({ '.git/HEAD': '' });
    const runtime = await createRuntime({
      extensions: [workflowGuard],
      cwd: project,
      logger: memoryLogger(),
    });
    const ran: string[] = [];
    const tools = {
      write: tool({
        description: 'Write a file',
        inputSchema: z.object({ path: z.string(), content: z.string() }),
        execute: async ({ path, content }) => {
          write(project, { [path]: content });
          ran.push(path);
          return `wrote ${path}`;
        },
      }),
    };
    const model = new MockLanguageModel({
      doGenerate: [
        writeCall('c1', 'src/app.ts'),
        writeCall('c2', 'plans/active/plan.md'),
        writeCall('c3', 'src/app.ts'),
        answer('Done.'),
      ],
    });
    const result = await runtime.runTurn({ sessionId: 's' }, async (turn) => {
      const call = await withHermes(turn, { prompt: 'fix the app', model, tools });
      expect(call.blocked).toBe(false);
      return generateText({
        model: call.model,
        tools: call.tools,
        prompt: call.prompt,
        stopWhen: stepCountIs(6),
      });
    });
    expect(result.text).toBe('Done.');
    expect(ran).toEqual(['plans/active/plan.md', 'src/app.ts']);
    expect(model.doGenerateCalls).toHaveLength(4);
    const first = model.doGenerateCalls[0]?.prompt ?? [];
    expect(first.find((m) => m.role === 'user')?.content).toEqual([
      { type: 'text', text: '/start-feature fix the app' },
    ]);
    expect(JSON.stringify(first.at(-1))).toMatch(/No plan exists yet at plans\/active\/plan\.md/);
    const second = model.doGenerateCalls[1]?.prompt ?? [];
    const blockedResult = second.filter((m) => m.role === 'tool').at(-1);
    expect(JSON.stringify(blockedResult)).toMatch(/blocked_by_extension.*workflow-guard/);
    const last = model.doGenerateCalls[3]?.prompt ?? [];
    expect(last[0]).toMatchObject({
      role: 'system',
      content: expect.stringMatching(/A plan exists at plans\/active\/plan\.md/),
    });
    expect(JSON.stringify(last)).not.toMatch(/No plan exists yet/);
    expect(existsSync(join(project, 'src/app.ts'))).toBe(true);
  });

  it('answers a blocked model request with the block message and does not call the model', async () => {
    const runtime = await createRuntime({
      extensions: [
        ext('budget', (h) =>
          h.on('before_llm_call', (e) => (e.iteration >= 1 ? block('Out of budget.') : undefined)),
        ),
      ],
      logger: memoryLogger(),
    });
    const tools = {
      read: tool({ inputSchema: z.object({ path: z.string() }), execute: async () => 'contents' }),
    };
    const model = new MockLanguageModel({
      doGenerate: [
        {
          content: [
            { type: 'tool-call', toolCallId: 'r1', toolName: 'read', input: '{"path":"a"}' },
          ],
          finishReason: { unified: 'tool-calls', raw: undefined },
          usage,
          warnings: [],
        },
        answer('never'),
      ],
    });
    const result = await runtime.runTurn({ sessionId: 's' }, async (turn) => {
      const call = await withHermes(turn, { prompt: 'read a', model, tools });
      return generateText({
        model: call.model,
        tools: call.tools,
        prompt: call.prompt,
        stopWhen: stepCountIs(5),
      });
    });
    expect(result.text).toBe('Out of budget.');
    expect(model.doGenerateCalls).toHaveLength(1);
  });

  it('blocks in streamText too, and rewrites tool arguments before execute', async () => {
    const runtime = await createRuntime({
      extensions: [
        ext('sandbox', (h) =>
          h.on('intercept_tool_call', (e) => ({
            action: 'rewrite',
            value: { ...e.toolArgs, path: `sandbox/${e.toolArgs.path}` },
          })),
        ),
        ext('stopper', (h) => h.on('before_llm_call', () => block('Stopped before the model.'))),
      ],
      logger: memoryLogger(),
    });
    const seen: string[] = [];
    const tools = {
      read: tool({
        inputSchema: z.object({ path: z.string() }),
        execute: async ({ path }) => {
          seen.push(path);
          return 'ok';
        },
      }),
    };
    const text = await runtime.runTurn({ sessionId: 's' }, async (turn) => {
      const call = await withHermes(turn, {
        prompt: 'go',
        model: new MockLanguageModel(),
        tools,
      });
      const executed = await call.tools.read.execute?.(
        { path: 'a.txt' },
        { toolCallId: 'x', messages: [] },
      );
      expect(executed).toBe('ok');
      return streamText({ model: call.model, prompt: call.prompt }).text;
    });
    expect(text).toBe('Stopped before the model.');
    expect(seen).toEqual(['sandbox/a.txt']);
  });

  it('passes a blocked prompt back without a model', async () => {
    const runtime = await createRuntime({
      extensions: [
        ext('no-secrets', (h) => h.on('transform_user_input', () => block('No secrets, please.'))),
      ],
      logger: memoryLogger(),
    });
    const call = await runtime.runTurn({ sessionId: 's' }, (turn) =>
      withHermes(turn, { prompt: 'sk-123', model: new MockLanguageModel() }),
    );
    expect(call).toMatchObject({ blocked: true, message: 'No secrets, please.' });
  });

  it('reports API requests, tool calls and hook decisions to observers', async () => {
    const project = tree({ '.git/HEAD': '' });
    const events: Array<Record<string, unknown>> = [];
    const runtime = await createRuntime({
      extensions: [
        workflowGuard,
        ext('recorder', (h) => h.observe('*', (p) => void events.push(p))),
      ],
      cwd: project,
      logger: memoryLogger(),
    });
    const tools = {
      write: tool({
        inputSchema: z.object({ path: z.string(), content: z.string() }),
        execute: async ({ path, content }) => {
          write(project, { [path]: content });
          return `wrote ${path}`;
        },
      }),
    };
    const model = new MockLanguageModel({
      doGenerate: [
        writeCall('c1', 'src/app.ts'),
        writeCall('c2', 'plans/active/plan.md'),
        answer('Done.'),
      ],
    });
    await runtime.runTurn({ sessionId: 's', turnId: 't' }, async (turn) => {
      const call = await withHermes(turn, { prompt: 'fix it', model, tools });
      return generateText({
        model: call.model,
        tools: call.tools,
        prompt: call.prompt,
        stopWhen: stepCountIs(5),
      });
    });
    const kinds = events.map((e) => e.event);
    expect(kinds.filter((k) => k === 'pre_api_request')).toHaveLength(3);
    expect(kinds.filter((k) => k === 'post_api_request')).toHaveLength(3);
    expect(
      events.filter((e) => e.event === 'post_tool_call').map((e) => [e.tool_call_id, e.status]),
    ).toEqual([
      ['c1', 'blocked'],
      ['c2', 'ok'],
    ]);
    const requests = events
      .filter((e) => e.event === 'pre_api_request')
      .map((e) => e.api_request_id);
    const toolEvents = events.filter((e) => e.event === 'pre_tool_call');
    expect(toolEvents.map((e) => e.api_request_id)).toEqual([requests[0], requests[1]]);
    expect(
      events.find((e) => e.event === 'hook_decision' && e.hook === 'intercept_tool_call'),
    ).toMatchObject({ blocked: true, blocked_by: 'workflow-guard', tool_call_id: 'c1' });
    expect(events.every((e) => e.session_id === 's' && e.turn_id === 't')).toBe(true);
  });

  it('reports each decision once, from the turn: prompt, every step, the blocked call', async () => {
    const decisions: Array<Record<string, unknown>> = [];
    const runtime = await createRuntime({
      extensions: [
        ext('shaper', (h) => {
          h.on('transform_user_input', (e) => rewrite(`${e.userMessage}!`));
          h.on('before_llm_call', () => injectSystem('be brief'));
          h.on('intercept_tool_call', () => block('no writes'), { tools: 'write' });
        }),
        ext('recorder', (h) => h.observe('hook_decision', (p) => void decisions.push(p))),
      ],
      logger: memoryLogger(),
    });
    const tools = {
      write: tool({
        inputSchema: z.object({ path: z.string(), content: z.string() }),
        execute: async () => 'written',
      }),
      read: tool({ inputSchema: z.object({}), execute: async () => 'contents' }),
    };
    const model = new MockLanguageModel({
      doGenerate: [
        {
          ...writeCall('c1', 'src/app.ts'),
          content: [
            ...writeCall('c1', 'src/app.ts').content,
            { type: 'tool-call' as const, toolCallId: 'c2', toolName: 'read', input: '{}' },
          ],
        },
        answer('Done.'),
      ],
    });
    await runtime.runTurn({ sessionId: 's', turnId: 't' }, async (turn) => {
      const call = await withHermes(turn, { prompt: 'fix it', model, tools });
      return generateText({ ...call, stopWhen: stepCountIs(5) });
    });
    expect(decisions.map((d) => [d.hook, d.tool_call_id ?? ''])).toEqual([
      ['transform_user_input', ''],
      ['before_llm_call', ''],
      ['intercept_tool_call', 'c1'],
      ['before_llm_call', ''],
    ]);
    expect(decisions[2]).toMatchObject({ blocked: true, blocked_by: 'shaper', turn_id: 't' });
  });

  it('reports a streamed request when its finish part arrives', async () => {
    const events: Array<Record<string, unknown>> = [];
    const runtime = await createRuntime({
      extensions: [ext('recorder', (h) => h.observe('*', (p) => void events.push(p)))],
      logger: memoryLogger(),
    });
    const model = new MockLanguageModel({
      doStream: async () => ({
        stream: new ReadableStream({
          start(controller) {
            for (const part of [
              { type: 'stream-start', warnings: [] },
              { type: 'text-start', id: '1' },
              { type: 'text-delta', id: '1', delta: 'Hello ' },
              { type: 'text-delta', id: '1', delta: 'there.' },
              { type: 'text-end', id: '1' },
              { type: 'finish', usage, finishReason: { unified: 'stop', raw: undefined } },
            ]) {
              controller.enqueue(part as never);
            }
            controller.close();
          },
        }),
      }),
    });
    const text = await runtime.runTurn({ sessionId: 's' }, async (turn) => {
      const call = await withHermes(turn, { prompt: 'hi', model });
      return streamText({ model: call.model, prompt: call.prompt }).text;
    });
    expect(text).toBe('Hello there.');
    expect(events.map((e) => e.event)).toEqual(['pre_api_request', 'post_api_request']);
    expect(events[1]).toMatchObject({
      finish_reason: 'stop',
      assistant_content_chars: 12,
      usage: { input_tokens: 1, output_tokens: 1 },
    });
  });

  it('tells observers the provider, the model that answered and a 429 with its retries', async () => {
    const events: Array<Record<string, unknown>> = [];
    const runtime = await createRuntime({
      extensions: [ext('recorder', (h) => h.observe('*', (p) => void events.push(p)))],
      logger: memoryLogger(),
    });
    const rateLimited = () =>
      new APICallError({
        message: 'Too Many Requests',
        url: 'https://api.example.test/v1/responses',
        requestBodyValues: {},
        statusCode: 429,
        // The SDK waits what the provider asks before it tries again: a millisecond here.
        responseHeaders: { 'retry-after-ms': '1' },
      });
    let calls = 0;
    const model = new MockLanguageModel({
      provider: 'openai.responses',
      modelId: 'gpt-test',
      doGenerate: async () => {
        if (++calls <= 2) throw rateLimited();
        return { ...answer('Hi.'), response: { modelId: 'gpt-test-2026-01-01' } };
      },
    });
    const text = await runtime.runTurn({ sessionId: 's' }, async (turn) => {
      const call = await withHermes(turn, { prompt: 'hi', model });
      return (
        await generateText({
          model: call.model,
          prompt: call.prompt,
          maxOutputTokens: 100,
          maxRetries: 2,
        })
      ).text;
    });
    expect(text).toBe('Hi.');
    const pre = events.filter((e) => e.event === 'pre_api_request');
    expect(pre).toHaveLength(3);
    expect(pre[0]).toMatchObject({
      model: 'gpt-test',
      provider: 'openai',
      api_mode: 'responses',
      max_tokens: 100,
    });
    expect(pre[0]).not.toHaveProperty('base_url');
    const errors = events.filter((e) => e.event === 'api_request_error');
    expect(errors.map((e) => [e.status_code, e.retryable, e.retry_count])).toEqual([
      [429, true, 0],
      [429, true, 1],
    ]);
    expect(errors[0]).toMatchObject({
      provider: 'openai',
      error: { type: 'AI_APICallError', message: 'Too Many Requests' },
    });
    expect(events.find((e) => e.event === 'post_api_request')).toMatchObject({
      response_model: 'gpt-test-2026-01-01',
      assistant_message: { role: 'assistant', content: 'Hi.' },
    });
  });

  it('reports the arguments of the tool calls a step asked for', async () => {
    const events: Array<Record<string, unknown>> = [];
    const runtime = await createRuntime({
      extensions: [
        ext('recorder', (h) => h.observe('post_api_request', (p) => void events.push(p))),
      ],
      logger: memoryLogger(),
    });
    const tools = {
      write: tool({
        inputSchema: z.object({ path: z.string(), content: z.string() }),
        execute: async () => 'written',
      }),
    };
    const model = new MockLanguageModel({ doGenerate: [writeCall('c1', 'a.md'), answer('Done.')] });
    await runtime.runTurn({ sessionId: 's' }, async (turn) => {
      const call = await withHermes(turn, { prompt: 'write', model, tools });
      return generateText({ ...call, stopWhen: stepCountIs(3) });
    });
    expect(events[0]?.assistant_message).toEqual({
      role: 'assistant',
      content: '',
      tool_calls: [{ id: 'c1', name: 'write', arguments: { path: 'a.md', content: '# x' } }],
    });
  });
});

describe('hermes-extensions/ai-sdk with a tool that throws an error that fights back', () => {
  it('hands the SDK the very value the tool threw, and reports the call as an error', async () => {
    const events: Array<Record<string, unknown>> = [];
    const runtime = await createRuntime({
      extensions: [ext('recorder', (h) => h.observe('post_tool_call', (p) => void events.push(p)))],
      logger: memoryLogger(),
    });
    const thrown = {
      toString(): string {
        throw new Error('toString');
      },
    };
    const seen: unknown[] = [];
    const tools = {
      write: tool({
        inputSchema: z.object({ path: z.string(), content: z.string() }),
        execute: async (): Promise<string> => {
          throw thrown;
        },
      }),
    };
    const model = new MockLanguageModel({ doGenerate: [writeCall('c1', 'a.md'), answer('Done.')] });
    await runtime.runTurn({ sessionId: 's' }, async (turn) => {
      const call = await withHermes(turn, { prompt: 'write', model, tools });
      const result = await generateText({ ...call, stopWhen: stepCountIs(3) });
      for (const part of result.steps[0]?.content ?? []) {
        if (part.type === 'tool-error') seen.push(part.error);
      }
    });
    expect(seen).toHaveLength(1);
    expect(seen[0]).toBe(thrown);
    expect(events).toEqual([
      expect.objectContaining({ status: 'error', error_type: 'Error', result: expect.any(String) }),
    ]);
  });
});

describe('hermes-extensions/ai-sdk without a system prompt', () => {
  it('sends an injected system prompt as it was injected, with no leading blank line', async () => {
    const runtime = await createRuntime({
      extensions: [
        ext('reminder', (h) => h.on('before_llm_call', () => injectSystem('Plan first.'))),
      ],
      logger: memoryLogger(),
    });
    const model = new MockLanguageModel({ doGenerate: [answer('Done.')] });
    await runtime.runTurn({ sessionId: 's' }, async (turn) => {
      const call = await withHermes(turn, { prompt: 'hi', model });
      return generateText({ model: call.model, prompt: call.prompt });
    });
    const prompt = model.doGenerateCalls[0]?.prompt ?? [];
    expect(prompt[0]).toEqual({ role: 'system', content: 'Plan first.' });
  });
});
