import { APICallError } from '@ai-sdk/provider';
import { SpanStatusCode } from '@opentelemetry/api';
import { type DataPoint, MetricReader } from '@opentelemetry/sdk-metrics';
import { InMemorySpanExporter, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { RetryError } from 'ai';
import {
  block,
  createRuntime,
  type ModelClient,
  runConversation,
  type Tools,
} from 'hermes-extensions';
import { memoryLogger, scriptedModel, toolCall } from 'hermes-extensions/testing';
import { describe, expect, it } from 'vitest';
import { ext } from '../../test/support/helpers.js';
import { createOtelExtension } from './index.js';

// The span names, attribute keys and metrics of the Hermes OTel mapping (its hooks reference),
// checked one by one through the reference loop and the real OpenTelemetry SDK.

class TestReader extends MetricReader {
  protected override async onShutdown() {}
  protected override async onForceFlush() {}
}

async function traced(config: Record<string, unknown> = {}) {
  const exporter = new InMemorySpanExporter();
  const reader = new TestReader();
  const runtime = await createRuntime({
    extensions: [
      ext('guard', (h) =>
        h.on('intercept_tool_call', () => block('no writes'), { tools: 'write' }),
      ),
      createOtelExtension({ spanExporter: exporter, metricReader: reader }),
    ],
    config: { extensions: { otel: config } },
    logger: memoryLogger(),
  });
  const span = (name: string) => {
    const found = exporter.getFinishedSpans().filter((s) => s.name === name);
    expect(found, `span ${name}`).toHaveLength(1);
    return found[0] as ReadableSpan;
  };
  const metric = async (name: string): Promise<DataPoint<number>[]> => {
    const { resourceMetrics } = await reader.collect();
    const found = resourceMetrics.scopeMetrics
      .flatMap((s) => s.metrics)
      .find((m) => m.descriptor.name === name);
    return (found?.dataPoints ?? []) as DataPoint<number>[];
  };
  const spans = (name: string) => exporter.getFinishedSpans().filter((s) => s.name === name);
  return { runtime, span, spans, metric };
}

function openaiModel(steps: Parameters<typeof scriptedModel>[0]): ModelClient {
  return Object.assign(scriptedModel(steps, { name: 'gpt-test' }), {
    provider: 'openai',
    maxTokens: 256,
  });
}

const tools: Tools = {
  read: { execute: () => 'contents' },
  write: { execute: () => 'written' },
  bash: {
    execute: () => {
      throw new Error('exit status 2');
    },
  },
};

const rateLimited = () =>
  new APICallError({
    message: 'Too Many Requests',
    url: 'https://api.example.test/v1/chat/completions',
    requestBodyValues: {},
    statusCode: 429,
  });

describe('extensions/otel, as the Hermes OTel mapping names it', () => {
  it('session.{kind}, llm and api attributes, tool statuses, and the turn summary on the session span', async () => {
    const { runtime, span, spans, metric } = await traced();
    await runConversation({
      runtime,
      sessionId: 's1',
      platform: 'telegram',
      senderId: 'user-7',
      userMessage: 'go',
      systemPrompt: '',
      model: openaiModel([
        {
          content: '',
          toolCalls: [
            toolCall('read', { path: 'notes/a.md' }, 'r1'),
            toolCall('write', { path: 'b.md' }, 'w1'),
            toolCall('bash', { command: 'ls -la' }, 'b1'),
          ],
          usage: { input_tokens: 12, output_tokens: 3 },
          model: 'gpt-test-2026',
        },
        { content: 'done', usage: { input_tokens: 20, output_tokens: 5 } },
      ]),
      tools,
    });
    const session = span('session.telegram');
    expect(session.attributes).toMatchObject({
      'hermes.session.kind': 'telegram',
      'hermes.session.id': 's1',
      'session.id': 's1',
      'user.id': 'user-7',
      'hermes.turn.tool_count': 3,
      'hermes.turn.tools': 'bash,read,write',
      'hermes.turn.tool_targets': 'notes/a.md|b.md',
      'hermes.turn.tool_commands': 'ls -la',
      'hermes.turn.tool_outcomes': 'blocked,error,ok',
      'hermes.turn.api_call_count': 2,
      'hermes.turn.final_status': 'completed',
    });
    expect(span('llm.gpt-test').attributes).toMatchObject({
      'llm.model_name': 'gpt-test',
      'llm.provider': 'openai',
      'gen_ai.request.model': 'gpt-test',
      'input.value': 'go',
    });
    expect(span('llm.gpt-test').attributes).not.toHaveProperty('input.mime_type');
    const first = spans('api.gpt-test').find((a) => a.attributes['hermes.api_call_count'] === 1);
    expect(first?.attributes).toMatchObject({
      'llm.model_name': 'gpt-test',
      'llm.provider': 'openai',
      'llm.invocation_parameters': '{"max_tokens":256}',
      'gen_ai.usage.input_tokens': 12,
      'gen_ai.usage.output_tokens': 3,
      'llm.token_count.prompt': 12,
      'llm.token_count.completion': 3,
      'llm.token_count.total': 15,
      'gen_ai.response.model': 'gpt-test-2026',
      'gen_ai.response.finish_reason': 'tool_calls',
    });
    expect(span('tool.read').attributes['hermes.tool.target']).toBe('notes/a.md');
    expect(span('tool.bash').attributes['hermes.tool.command']).toBe('ls -la');
    expect(span('tool.read').status.code).toBe(SpanStatusCode.OK);
    expect(span('tool.write').status.code).toBe(SpanStatusCode.OK);
    expect(span('tool.bash').status).toMatchObject({
      code: SpanStatusCode.ERROR,
      message: 'exit status 2',
    });
    const sessions = await metric('hermes.sessions');
    expect(sessions.map((d) => [d.attributes, d.value])).toEqual([
      [{ kind: 'telegram', final_status: 'completed' }, 1],
    ]);
  });

  it('capture_conversation_history puts the whole conversation on the llm span', async () => {
    const { runtime, span } = await traced({ capture_conversation_history: true });
    await runConversation({
      runtime,
      sessionId: 's',
      userMessage: 'and now?',
      systemPrompt: '',
      history: [
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: 'hello' },
      ],
      model: openaiModel([{ content: 'done' }]),
      tools: {},
    });
    const llm = span('llm.gpt-test');
    expect(llm.attributes).toMatchObject({
      'input.mime_type': 'application/json',
      'hermes.conversation.message_count': 3,
    });
    expect(JSON.parse(String(llm.attributes['input.value']))).toEqual([
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: 'hello' },
      { role: 'user', content: 'and now?' },
    ]);
  });

  it('a 429 closes its api span as ERROR with status, retries and duration, and counts the error and the retry', async () => {
    const { runtime, span, metric } = await traced();
    const model = openaiModel([
      () => {
        throw new RetryError({
          message: 'Failed after 3 attempts. Last error: Too Many Requests',
          reason: 'maxRetriesExceeded',
          errors: [rateLimited(), rateLimited(), rateLimited()],
        });
      },
    ]);
    await expect(
      runConversation({
        runtime,
        sessionId: 's',
        userMessage: 'go',
        systemPrompt: '',
        model,
        tools,
      }),
    ).rejects.toThrow('Failed after 3 attempts');
    const api = span('api.gpt-test');
    expect(api.status).toMatchObject({
      code: SpanStatusCode.ERROR,
      message: 'Failed after 3 attempts. Last error: Too Many Requests',
    });
    expect(api.attributes).toMatchObject({
      'error.type': 'AI_RetryError',
      'http.response.status_code': 429,
      'gen_ai.response.status_code': 429,
      'hermes.retry.count': 2,
      'hermes.max_retries': 2,
      'hermes.retryable': true,
      'llm.response.duration_ms': expect.any(Number),
    });
    expect(api.events.map((e) => [e.name, e.attributes])).toEqual([
      [
        'exception',
        {
          'exception.type': 'AI_RetryError',
          'exception.message': 'Failed after 3 attempts. Last error: Too Many Requests',
          'exception.escaped': true,
        },
      ],
    ]);
    const session = span('session.cli');
    expect(session.status.code).not.toBe(SpanStatusCode.ERROR);
    expect(session.attributes).toMatchObject({
      'hermes.turn.final_status': 'incomplete',
      'hermes.turn.api_call_count': 1,
      'error.type': 'AI_RetryError',
    });
    expect((await metric('hermes.api.error.count')).map((d) => [d.attributes, d.value])).toEqual([
      [{ error_type: 'AI_RetryError', status_class: '4xx', retryable: 'true' }, 1],
    ]);
    expect((await metric('hermes.retry.count')).map((d) => d.value)).toEqual([1]);
    expect((await metric('hermes.sessions')).map((d) => d.attributes)).toEqual([
      { kind: 'cli', final_status: 'incomplete' },
    ]);
  });

  it('an error that is not worth retrying counts no retry', async () => {
    const { runtime, span, metric } = await traced();
    const model = openaiModel([
      () => {
        throw Object.assign(new Error('bad request'), { status: 400 });
      },
    ]);
    await expect(
      runConversation({
        runtime,
        sessionId: 's',
        userMessage: 'go',
        systemPrompt: '',
        model,
        tools,
      }),
    ).rejects.toThrow('bad request');
    expect(span('api.gpt-test').attributes).toMatchObject({
      'http.response.status_code': 400,
      'hermes.retryable': false,
      'hermes.retry.count': 0,
    });
    expect((await metric('hermes.api.error.count')).map((d) => d.attributes)).toEqual([
      { error_type: 'Error', status_class: '4xx', retryable: 'false' },
    ]);
    expect(await metric('hermes.retry.count')).toEqual([]);
  });

  it('an error without a request in flight gets a short api.error span of its own', async () => {
    const { runtime, span } = await traced();
    const ids = { session_id: 's', turn_id: 't', platform: 'cli', model: 'm' };
    runtime.emit('on_session_start', { ...ids });
    runtime.emit('api_request_error', {
      ...ids,
      api_request_id: 'gone',
      status_code: 503,
      retryable: true,
      error: { type: 'APIError', message: 'upstream unavailable' },
    });
    runtime.emit('on_session_end', {
      ...ids,
      completed: false,
      interrupted: false,
      reason: 'error',
    });
    const fallback = span('api.error');
    expect(fallback.status).toMatchObject({
      code: SpanStatusCode.ERROR,
      message: 'upstream unavailable',
    });
    expect(fallback.attributes).toMatchObject({
      'error.type': 'APIError',
      'http.response.status_code': 503,
      'hermes.retryable': true,
    });
    expect(fallback.parentSpanContext?.spanId).toBe(span('session.cli').spanContext().spanId);
  });

  it('a status code a host sends as text is read as the number it spells', async () => {
    const { runtime, span, metric } = await traced();
    const ids = { session_id: 's', turn_id: 't', platform: 'cli', model: 'm' };
    runtime.emit('api_request_error', { ...ids, status_code: '503', error: { type: 'APIError' } });
    expect(span('api.error').attributes).toMatchObject({
      'http.response.status_code': 503,
      'gen_ai.response.status_code': 503,
    });
    expect((await metric('hermes.api.error.count')).map((d) => d.attributes.status_class)).toEqual([
      '5xx',
    ]);
  });
});
