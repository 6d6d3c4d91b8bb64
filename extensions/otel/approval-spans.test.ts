import { SpanStatusCode } from '@opentelemetry/api';
import { MetricReader } from '@opentelemetry/sdk-metrics';
import { InMemorySpanExporter, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { ask, createRuntime, runConversation } from 'hermes-extensions';
import { memoryLogger, scriptedModel, toolCall } from 'hermes-extensions/testing';
import { describe, expect, it } from 'vitest';
import { ext } from '../../test/support/helpers.js';
import { createOtelExtension } from './index.js';

class TestReader extends MetricReader {
  protected override async onShutdown() {}
  protected override async onForceFlush() {}
}

const careful = ext('careful', (h) =>
  h.on('intercept_tool_call', () => ask('deletes files'), { tools: 'bash' }),
);
const parentOf = (span: ReadableSpan | undefined) => span?.parentSpanContext?.spanId;

/** One turn: the model asks for two shell calls; the approver allows the first only. */
async function approvedAndDenied() {
  const exporter = new InMemorySpanExporter();
  const reader = new TestReader();
  const runtime = await createRuntime({
    extensions: [careful, createOtelExtension({ spanExporter: exporter, metricReader: reader })],
    logger: memoryLogger(),
  });
  await runConversation({
    runtime,
    sessionId: 's1',
    turnId: 't1',
    userMessage: 'clean up',
    systemPrompt: '',
    model: scriptedModel(
      [
        {
          content: '',
          toolCalls: [
            toolCall('bash', { command: 'mkdir build' }, 'c1'),
            toolCall('bash', { command: 'mkdir src' }, 'c2'),
          ],
        },
        { content: 'done' },
      ],
      { name: 'gpt-test' },
    ),
    tools: { bash: { execute: () => 'ok' } },
    approve: (request) => request.toolCallId === 'c1',
  });
  const { resourceMetrics } = await reader.collect();
  const metrics = Object.fromEntries(
    resourceMetrics.scopeMetrics
      .flatMap((s) => s.metrics)
      .map((m) => [m.descriptor.name, m.dataPoints]),
  );
  // Read before close: closing shuts the exporter down, which empties it.
  const spans = exporter.getFinishedSpans();
  await runtime.close();
  return { spans, metrics };
}

describe('extensions/otel: approvals', () => {
  it('an approval.{pattern_key} span per ask, under the request that asked, naming the gated call', async () => {
    const { spans } = await approvedAndDenied();
    const approvals = spans.filter((s) => s.name === 'approval.careful');
    expect(approvals).toHaveLength(2);
    const [api] = spans.filter((s) => s.name === 'api.gpt-test');
    const byCall = (id: string) =>
      approvals.find((s) => s.attributes['gen_ai.tool.call.id'] === id);
    for (const approval of approvals) {
      expect(parentOf(approval)).toBe(api?.spanContext().spanId);
      expect(approval.status.code).toBe(SpanStatusCode.OK);
    }
    expect(byCall('c1')?.attributes).toMatchObject({
      'hermes.approval.pattern_key': 'careful',
      'hermes.approval.surface': 'approver',
      'hermes.approval.command': 'mkdir build',
      'hermes.approval.description': 'deletes files',
      'gen_ai.tool.call.id': 'c1',
      'hermes.approval.choice': 'once',
      'hermes.approval.granted': true,
      'hermes.approval.timed_out': false,
      'hermes.approval.duration_ms': expect.any(Number),
    });
    // A no is a person's decision, not a fault: the span stays OK.
    expect(byCall('c2')?.attributes).toMatchObject({
      'hermes.approval.choice': 'deny',
      'hermes.approval.granted': false,
    });
    // The gated call's own span is in the same trace.
    const tools = spans.filter((s) => s.name === 'tool.bash');
    expect(new Set([...tools, ...approvals].map((s) => s.spanContext().traceId)).size).toBe(1);
  });

  it('counts answers and their waits by choice and pattern key', async () => {
    const { metrics } = await approvedAndDenied();
    const counts = (metrics['hermes.approval.count'] ?? []).map((d) => [
      d.attributes.choice,
      d.attributes.pattern_key,
      d.value,
    ]);
    expect(counts).toEqual(
      expect.arrayContaining([
        ['once', 'careful', 1],
        ['deny', 'careful', 1],
      ]),
    );
    const durations = (metrics['hermes.approval.duration'] ?? []).map((d) => [
      d.attributes.choice,
      (d.value as { count: number }).count,
    ]);
    expect(durations).toEqual(
      expect.arrayContaining([
        ['once', 1],
        ['deny', 1],
      ]),
    );
  });
});
