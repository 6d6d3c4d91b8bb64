import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SpanStatusCode } from '@opentelemetry/api';
import { MetricReader } from '@opentelemetry/sdk-metrics';
import {
  InMemorySpanExporter,
  type ReadableSpan,
  type SpanExporter,
} from '@opentelemetry/sdk-trace-base';
import { block, createRuntime, runConversation } from 'hermes-extensions';
import { memoryLogger, scriptedModel, toolCall } from 'hermes-extensions/testing';
import { describe, expect, it } from 'vitest';
import { ext } from '../../test/support/helpers.js';
import { drain, noEscapes, trapEverything } from '../../test/support/hostile-values.js';
import otel, { createOtelExtension } from './index.js';

class TestReader extends MetricReader {
  protected override async onShutdown() {}
  protected override async onForceFlush() {}
}

const guard = ext('guard', (h) =>
  h.on('intercept_tool_call', () => block('no writes'), { tools: 'write' }),
);
const tools = { read: { execute: () => 'contents' }, write: { execute: () => 'written' } };

function turnModel() {
  return scriptedModel(
    [
      {
        content: '',
        toolCalls: [toolCall('read', { path: 'a' }, 'r1'), toolCall('write', { path: 'b' }, 'w1')],
        usage: { input_tokens: 12, output_tokens: 3 },
      },
      { content: 'done', usage: { input_tokens: 20, output_tokens: 5 } },
    ],
    { name: 'gpt-test' },
  );
}

/** An OTLP/HTTP collector on a free port: what each request posted, by path. */
async function collector() {
  const bodies: Array<{ url: string; body: string }> = [];
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => {
      body += chunk;
    });
    request.on('end', () => {
      bodies.push({ url: request.url ?? '', body });
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { bodies, port, server };
}

const parentOf = (span: ReadableSpan) => span.parentSpanContext?.spanId;

describe('extensions/otel', () => {
  it('builds the span tree session → llm → api → tool, with outcomes, decisions and token usage', async () => {
    const exporter = new InMemorySpanExporter();
    const reader = new TestReader();
    const runtime = await createRuntime({
      extensions: [guard, createOtelExtension({ spanExporter: exporter, metricReader: reader })],
      logger: memoryLogger(),
    });
    await runConversation({
      runtime,
      sessionId: 's1',
      userMessage: 'go',
      systemPrompt: '',
      model: turnModel(),
      tools,
    });
    const spans = exporter.getFinishedSpans();
    const byName = (name: string) => spans.filter((s) => s.name === name);
    const [session] = byName('session.cli');
    const [llm] = byName('llm.gpt-test');
    const apis = byName('api.gpt-test');
    const [read] = byName('tool.read');
    const [write] = byName('tool.write');
    expect(session && llm && read && write).toBeTruthy();
    expect(apis).toHaveLength(2);
    expect(parentOf(session as ReadableSpan)).toBeUndefined();
    expect(parentOf(llm as ReadableSpan)).toBe(session?.spanContext().spanId);
    for (const api of apis) expect(parentOf(api)).toBe(llm?.spanContext().spanId);
    const firstApi = apis.find((a) => a.attributes['hermes.api_call_count'] === 1);
    expect(parentOf(read as ReadableSpan)).toBe(firstApi?.spanContext().spanId);
    expect(parentOf(write as ReadableSpan)).toBe(firstApi?.spanContext().spanId);
    expect(new Set(spans.map((s) => s.spanContext().traceId)).size).toBe(1);
    expect(firstApi?.attributes).toMatchObject({
      'gen_ai.usage.input_tokens': 12,
      'gen_ai.usage.output_tokens': 3,
      'gen_ai.response.finish_reason': 'tool_calls',
    });
    expect(read?.attributes['hermes.tool.outcome']).toBe('ok');
    expect(write?.attributes).toMatchObject({
      'hermes.tool.outcome': 'blocked',
      'hermes.hook.blocked_by': 'guard',
    });
    expect(write?.status.code).toBe(SpanStatusCode.OK);
    expect(write?.events.map((e) => e.name)).toEqual(['hermes.hook_decision']);
    expect(session?.attributes).toMatchObject({
      'hermes.turn.completed': true,
      'hermes.turn.final_status': 'completed',
    });
    const { resourceMetrics } = await reader.collect();
    const metrics = Object.fromEntries(
      resourceMetrics.scopeMetrics
        .flatMap((s) => s.metrics)
        .map((m) => [m.descriptor.name, m.dataPoints]),
    );
    const calls = (metrics['hermes.tool.calls'] ?? []).map((d) => [
      d.attributes.tool_name,
      d.attributes.outcome,
      d.value,
    ]);
    expect(calls).toEqual(
      expect.arrayContaining([
        ['read', 'ok', 1],
        ['write', 'blocked', 1],
      ]),
    );
    expect(metrics['hermes.tokens.input']?.[0]?.value).toBe(32);
    expect(metrics['hermes.tool.duration']).toBeDefined();
  });

  it('marks an API failure as an error, not the turn it ended', async () => {
    const exporter = new InMemorySpanExporter();
    const runtime = await createRuntime({
      extensions: [createOtelExtension({ spanExporter: exporter, metricReader: new TestReader() })],
      logger: memoryLogger(),
    });
    const model = scriptedModel(
      [() => Promise.reject(Object.assign(new Error('503 upstream'), { name: 'APIError' }))],
      { name: 'm' },
    );
    await expect(
      runConversation({
        runtime,
        sessionId: 's',
        userMessage: 'go',
        systemPrompt: '',
        model,
        tools: {},
      }),
    ).rejects.toThrow('503');
    const api = exporter.getFinishedSpans().find((s) => s.name === 'api.m');
    expect(api?.status).toMatchObject({ code: SpanStatusCode.ERROR, message: '503 upstream' });
    expect(api?.events.map((e) => e.name)).toEqual(['exception']);
    const session = exporter.getFinishedSpans().find((s) => s.name === 'session.cli');
    expect(session?.status.code).not.toBe(SpanStatusCode.ERROR);
    expect(session?.attributes).toMatchObject({
      'hermes.turn.final_status': 'incomplete',
      'hermes.turn.end_reason': 'error',
    });
  });

  it('exports over OTLP/HTTP to the configured endpoint', async () => {
    const { bodies, port, server } = await collector();
    try {
      const runtime = await createRuntime({
        extensions: [otel],
        config: {
          extensions: {
            otel: { endpoint: `http://127.0.0.1:${port}`, service_name: 'hermes-test' },
          },
        },
        logger: memoryLogger(),
      });
      await runConversation({
        runtime,
        sessionId: 's',
        userMessage: 'go',
        systemPrompt: '',
        model: turnModel(),
        tools,
      });
      for (let i = 0; i < 200 && !bodies.some((b) => b.url === '/v1/traces'); i++)
        await new Promise((r) => setTimeout(r, 10));
      const traces = bodies.find((b) => b.url === '/v1/traces');
      expect(traces).toBeDefined();
      for (const name of ['session.cli', 'llm.gpt-test', 'api.gpt-test', 'tool.read', 'tool.write'])
        expect(traces?.body).toContain(`"${name}"`);
      expect(traces?.body).toContain('hermes-test');
    } finally {
      server.close();
    }
  });

  it('on close, ends the spans still open and exports every span and metric at once', async () => {
    const { bodies, port, server } = await collector();
    try {
      const runtime = await createRuntime({
        extensions: [otel],
        config: { extensions: { otel: { endpoint: `http://127.0.0.1:${port}` } } },
        logger: memoryLogger(),
      });
      // A host that reports a tool call and its decision, then exits before the call ends (a
      // command hook answers PreToolUse and is gone).
      const ids = { session_id: 's', turn_id: 't', tool_call_id: 'c1', tool_name: 'bash' };
      runtime.emit('pre_tool_call', { ...ids, args: { command: 'rm -rf /' } });
      runtime.emit('hook_decision', { ...ids, hook: 'intercept_tool_call', blocked: true });
      await runtime.close();
      const traces = bodies.find((b) => b.url === '/v1/traces');
      expect(traces?.body).toContain('"tool.bash"');
      expect(traces?.body).toContain('hermes.hook_decision');
      expect(bodies.find((b) => b.url === '/v1/metrics')?.body).toContain('hermes.hook.decisions');
    } finally {
      server.close();
    }
  });
});

describe('extensions/otel when exporting fails', () => {
  const { escaped } = noEscapes();

  const failing: Record<string, () => SpanExporter> = {
    'an exporter whose export throws': () => ({
      export: () => {
        throw new Error('export');
      },
      shutdown: () => Promise.resolve(),
    }),
    'an exporter whose flush and shutdown reject with null': () => ({
      export: (_spans, done) =>
        done({ code: 1 /* ExportResultCode.FAILED */, error: new Error('down') }),
      forceFlush: () => Promise.reject(null),
      shutdown: () => Promise.reject(null),
    }),
    'an exporter whose flush rejects with a proxy': () => ({
      export: (_spans, done) => done({ code: 0 /* ExportResultCode.SUCCESS */ }),
      forceFlush: () => Promise.reject(trapEverything(new Error('proxied'))),
      shutdown: () => Promise.reject(trapEverything(new Error('proxied'))),
    }),
  };
  for (const [name, make] of Object.entries(failing)) {
    it(`${name}: the turn and the close go on, nothing escapes`, async () => {
      const logger = memoryLogger();
      const runtime = await createRuntime({
        extensions: [createOtelExtension({ spanExporter: make(), metricReader: new TestReader() })],
        logger,
      });
      const result = await runConversation({
        runtime,
        sessionId: 's',
        userMessage: 'go',
        systemPrompt: '',
        model: turnModel(),
        tools,
      });
      expect(result.finalResponse).toBe('done');
      await drain();
      await expect(runtime.close()).resolves.toBeUndefined();
      expect(escaped).toEqual([]);
      // Each failure is logged with its reason; none breaks the close.
      const warnings = logger.lines.map((l) => l.message);
      expect(warnings.length).toBeGreaterThan(0);
      for (const warning of warnings) expect(warning).toMatch(/export (at close )?failed: \S/);
      expect(warnings.join('\n')).not.toMatch(/undefined|onClose failed/);
    });
  }
});
