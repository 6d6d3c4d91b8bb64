import { APICallError } from '@ai-sdk/provider';
import { RetryError } from 'ai';
import {
  createRuntime,
  type ModelClient,
  type ObserverPayload,
  runConversation,
} from 'hermes-extensions';
import { memoryLogger, scriptedModel, toolCall } from 'hermes-extensions/testing';
import { describe, expect, it } from 'vitest';
import { ext } from '../support/helpers.js';
import { hostileErrors, noEscapes, trapEverything } from '../support/hostile-values.js';

async function recorded() {
  const events: ObserverPayload[] = [];
  const runtime = await createRuntime({
    logger: memoryLogger(),
    extensions: [ext('recorder', (h) => h.observe('*', (payload) => void events.push(payload)))],
  });
  const of = (event: string) => events.filter((e) => e.event === event);
  return { runtime, events, of };
}

/** A scripted model that also says where its requests go, as a real client would. */
function describedModel(steps: Parameters<typeof scriptedModel>[0]): ModelClient {
  return Object.assign(scriptedModel(steps, { name: 'gpt-test' }), {
    provider: 'openai',
    baseUrl: 'https://api.example.test/v1',
    apiMode: 'chat_completions',
    maxTokens: 512,
  });
}

const turn = (
  runtime: Awaited<ReturnType<typeof recorded>>['runtime'],
  model: ModelClient,
  extra: Partial<Parameters<typeof runConversation>[0]> = {},
) =>
  runConversation({
    runtime,
    sessionId: 's',
    userMessage: 'hello there',
    systemPrompt: 'be brief',
    model,
    tools: { read: { description: 'reads', execute: () => 'text' } },
    ...extra,
  });

describe('API request payloads of the reference loop', () => {
  it('pre_api_request names the provider, its address and API, the request size and max_tokens', async () => {
    const { runtime, of } = await recorded();
    await turn(runtime, describedModel([{ content: 'hi', model: 'gpt-test-2026-01-01' }]));
    const [pre] = of('pre_api_request');
    // 'be brief' + 'hello there' + 'read' + 'reads'
    const chars = 8 + 11 + 4 + 5;
    expect(pre).toMatchObject({
      model: 'gpt-test',
      provider: 'openai',
      base_url: 'https://api.example.test/v1',
      api_mode: 'chat_completions',
      max_tokens: 512,
      request_char_count: chars,
      approx_input_tokens: Math.ceil(chars / 4),
      message_count: 1,
      tool_count: 1,
    });
    const [post] = of('post_api_request');
    expect(post).toMatchObject({
      provider: 'openai',
      base_url: 'https://api.example.test/v1',
      api_mode: 'chat_completions',
      response_model: 'gpt-test-2026-01-01',
      assistant_message: { role: 'assistant', content: 'hi' },
    });
    expect(post?.max_tokens).toBeUndefined();
  });

  it('post_api_request carries the assistant message with its tool calls', async () => {
    const { runtime, of } = await recorded();
    await turn(
      runtime,
      describedModel([
        { content: 'reading', toolCalls: [toolCall('read', { path: 'a' }, 'c1')] },
        { content: 'done' },
      ]),
    );
    expect(of('post_api_request')[0]?.assistant_message).toEqual({
      role: 'assistant',
      content: 'reading',
      tool_calls: [{ id: 'c1', name: 'read', arguments: { path: 'a' } }],
    });
    expect(of('post_api_request')[0]?.response_model).toBeUndefined();
  });

  it('api_request_error keeps a 429: status code, retryable, and the retries the error reports', async () => {
    const { runtime, of } = await recorded();
    const rateLimited = () =>
      new APICallError({
        message: 'Too Many Requests',
        url: 'https://api.example.test/v1/chat/completions',
        requestBodyValues: {},
        statusCode: 429,
      });
    const model = describedModel([
      () => {
        throw new RetryError({
          message: 'Failed after 3 attempts.',
          reason: 'maxRetriesExceeded',
          errors: [rateLimited(), rateLimited(), rateLimited()],
        });
      },
    ]);
    await expect(turn(runtime, model)).rejects.toThrow('Failed after 3 attempts');
    expect(of('api_request_error')[0]).toMatchObject({
      provider: 'openai',
      api_mode: 'chat_completions',
      status_code: 429,
      retryable: true,
      retry_count: 2,
      max_retries: 2,
      reason: 'maxRetriesExceeded',
      error: { type: 'AI_RetryError', message: 'Failed after 3 attempts.' },
    });
  });

  it('api_request_error reads the fields a client of its own puts on its errors', async () => {
    const { runtime, of } = await recorded();
    const model = scriptedModel([
      () => {
        throw Object.assign(new Error('overloaded'), {
          status: 529,
          retryable: false,
          retryCount: 4,
          maxRetries: 4,
          reason: 'gave up',
        });
      },
    ]);
    await expect(turn(runtime, model)).rejects.toThrow('overloaded');
    expect(of('api_request_error')[0]).toMatchObject({
      status_code: 529,
      retryable: false,
      retry_count: 4,
      max_retries: 4,
      reason: 'gave up',
    });
  });

  it('a plain error has no status; a first failure has retried nothing', async () => {
    const { runtime, of } = await recorded();
    const model = scriptedModel([
      () => {
        throw new Error('socket hang up');
      },
    ]);
    await expect(turn(runtime, model)).rejects.toThrow('socket hang up');
    const [error] = of('api_request_error');
    expect(error?.retry_count).toBe(0);
    for (const field of ['status_code', 'retryable', 'max_retries', 'reason', 'provider'])
      expect(error).not.toHaveProperty(field);
  });
});

describe('turn payloads of the reference loop', () => {
  it('pre_llm_call names the sender; post_llm_call leaves the history out unless asked', async () => {
    const { runtime, of } = await recorded();
    await turn(runtime, scriptedModel([{ content: 'hi' }]), { senderId: 'user-42' });
    expect(of('pre_llm_call')[0]).toMatchObject({
      sender_id: 'user-42',
      user_message: 'hello there',
    });
    expect(of('post_llm_call')[0]).not.toHaveProperty('conversation_history');
  });

  it('post_llm_call carries the conversation after the turn when captured', async () => {
    const { runtime, of } = await recorded();
    const history = [
      { role: 'user' as const, content: 'earlier' },
      { role: 'assistant' as const, content: 'before' },
    ];
    await turn(runtime, scriptedModel([{ content: 'hi' }]), {
      history,
      captureConversationHistory: true,
    });
    expect(of('pre_llm_call')[0]).not.toHaveProperty('sender_id');
    expect(of('post_llm_call')[0]?.conversation_history).toEqual([
      ...history,
      { role: 'user', content: 'hello there' },
      { role: 'assistant', content: 'hi' },
    ]);
  });
});

describe('api_request_error from an error that fights back', () => {
  noEscapes();

  const circular = () => {
    const error = new Error('loop') as Error & { cause?: unknown };
    error.cause = error;
    return Object.assign(error, { errors: [error], lastError: error });
  };
  const errors: Record<string, () => unknown> = {
    ...hostileErrors(),
    'an error whose cause is itself': circular,
    'an error whose status getter throws': () =>
      Object.defineProperty(new Error('status'), 'status', {
        get() {
          throw new Error('status getter');
        },
      }),
    'an error whose errors are a proxy': () =>
      Object.assign(new Error('attempts'), { errors: trapEverything([]) }),
  };
  for (const [name, make] of Object.entries(errors)) {
    it(`a model that throws ${name}: the turn fails with that very value, the error is reported`, async () => {
      const { runtime, of } = await recorded();
      const thrown = make();
      const model = scriptedModel([
        () => {
          throw thrown;
        },
      ]);
      await expect(turn(runtime, model)).rejects.toBe(thrown);
      expect(of('api_request_error')).toHaveLength(1);
      expect(of('api_request_error')[0]?.error).toMatchObject({ type: expect.any(String) });
    });
  }

  it('a huge message and a huge reason arrive bounded', async () => {
    const { runtime, of } = await recorded();
    const huge = 'x'.repeat(1_000_000);
    const model = scriptedModel([
      () => {
        throw Object.assign(new Error(huge), { reason: huge });
      },
    ]);
    await expect(turn(runtime, model)).rejects.toThrow();
    const [error] = of('api_request_error');
    expect(JSON.stringify(error).length).toBeLessThan(50_000);
    expect(String(error?.reason)).toMatch(/^x+\[Truncated/);
  });

  it('a status code given as text is read as the number it spells; other text is left out', async () => {
    const { runtime, of } = await recorded();
    const model = scriptedModel([
      () => {
        throw Object.assign(new Error('limited'), { status: '429' });
      },
      () => {
        throw Object.assign(new Error('odd'), { status: 'teapot', statusCode: '' });
      },
    ]);
    await expect(turn(runtime, model)).rejects.toThrow('limited');
    await expect(turn(runtime, model)).rejects.toThrow('odd');
    const [limited, odd] = of('api_request_error');
    expect(limited).toMatchObject({ status_code: 429, retryable: true });
    expect(odd).not.toHaveProperty('status_code');
  });
});

describe('post_tool_call from a tool that throws an error that fights back', () => {
  noEscapes();

  for (const [name, make] of Object.entries(hostileErrors())) {
    it(`a tool that throws ${name}: the turn goes on, the call is an error, the payload is reported`, async () => {
      const { runtime, of } = await recorded();
      const model = scriptedModel([
        { content: '', toolCalls: [toolCall('read', { path: 'a' })] },
        { content: 'done' },
      ]);
      const result = await turn(runtime, model, {
        tools: {
          read: {
            execute: () => {
              throw make();
            },
          },
        },
      });
      expect(result.finalResponse).toBe('done');
      expect(result.toolCalls[0]?.status).toBe('error');
      const [post] = of('post_tool_call');
      expect(post).toMatchObject({ status: 'error', error_type: expect.any(String) });
      expect(typeof post?.error_message).toBe('string');
    });
  }
});
