import { SpanStatusCode } from '@opentelemetry/api';
import { MetricReader } from '@opentelemetry/sdk-metrics';
import { InMemorySpanExporter, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { createRuntime, runConversation, subagentTool } from 'hermes-extensions';
import { memoryLogger, scriptedModel, toolCall } from 'hermes-extensions/testing';
import { describe, expect, it } from 'vitest';
import { createOtelExtension } from './index.js';

class TestReader extends MetricReader {
  protected override async onShutdown() {}
  protected override async onForceFlush() {}
}

const parentOf = (span: ReadableSpan | undefined) => span?.parentSpanContext?.spanId;
const idOf = (span: ReadableSpan | undefined) => span?.spanContext().spanId;

/** One turn: the model delegates twice; the first worker answers, the second one's model fails. */
async function delegating() {
  const exporter = new InMemorySpanExporter();
  const reader = new TestReader();
  const runtime = await createRuntime({
    extensions: [createOtelExtension({ spanExporter: exporter, metricReader: reader })],
    logger: memoryLogger(),
  });
  const workers = [
    scriptedModel(
      [{ content: '', toolCalls: [toolCall('read', {}, 'r1')] }, { content: 'found it' }],
      { name: 'gpt-sub' },
    ),
    { name: 'gpt-sub', complete: () => Promise.reject(new Error('provider down')) },
  ];
  await runConversation({
    runtime,
    sessionId: 's1',
    turnId: 't1',
    userMessage: 'look around',
    systemPrompt: '',
    model: scriptedModel(
      [
        {
          content: '',
          toolCalls: [
            toolCall('delegate', { task: 'find the config' }, 'd1'),
            toolCall('delegate', { task: 'find the tests' }, 'd2'),
          ],
        },
        { content: 'done' },
      ],
      { name: 'gpt-test' },
    ),
    tools: {
      delegate: subagentTool({
        type: 'explorer',
        execute: async ({ task }, { runSubagent }) =>
          (
            await runSubagent({
              prompt: String(task),
              systemPrompt: '',
              model: workers.shift() as (typeof workers)[number],
              tools: { read: { execute: () => 'config.yaml' } },
            })
          ).finalResponse,
      }),
    },
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

describe('extensions/otel: subagents', () => {
  it('a subagent.{role} span per subagent, under the request that started it, its requests under it', async () => {
    const { spans } = await delegating();
    const subagents = spans.filter((s) => s.name === 'subagent.explorer');
    expect(subagents).toHaveLength(2);
    const [parentApi] = spans.filter((s) => s.name === 'api.gpt-test');
    for (const subagent of subagents) expect(parentOf(subagent)).toBe(idOf(parentApi));
    const [found, failed] = subagents;
    expect(found?.attributes).toMatchObject({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': 'explorer',
      'hermes.subagent.role': 'explorer',
      'hermes.subagent.child_id': expect.stringMatching(/^subagent-/),
      'hermes.subagent.parent_session_id': 's1',
      'hermes.subagent.parent_turn_id': 't1',
      'hermes.subagent.goal': 'find the config',
      'input.value': 'find the config',
      'hermes.subagent.status': 'completed',
      'hermes.subagent.duration_ms': expect.any(Number),
      'hermes.subagent.summary': 'found it',
      'output.value': 'found it',
    });
    expect(found?.status.code).toBe(SpanStatusCode.OK);
    expect(failed?.attributes['hermes.subagent.status']).toBe('failed');
    expect(failed?.status.code).toBe(SpanStatusCode.ERROR);
    // The subagent's own requests and tool calls nest under its span: one trace.
    const subApis = spans.filter((s) => s.name === 'api.gpt-sub');
    expect(subApis.length).toBeGreaterThanOrEqual(3);
    const underSubagents = new Set(subagents.map(idOf));
    for (const api of subApis) expect(underSubagents.has(parentOf(api))).toBe(true);
    const read = spans.find((s) => s.name === 'tool.read');
    expect(subApis.map(idOf)).toContain(parentOf(read));
    expect(new Set(spans.map((s) => s.spanContext().traceId)).size).toBe(1);
  });

  it('counts subagents by role and status, and their durations by role', async () => {
    const { metrics } = await delegating();
    const counts = (metrics['hermes.subagent.count'] ?? []).map((d) => [
      d.attributes.role,
      d.attributes.status,
      d.value,
    ]);
    expect(counts).toEqual(
      expect.arrayContaining([
        ['explorer', 'completed', 1],
        ['explorer', 'failed', 1],
      ]),
    );
    const durations = (metrics['hermes.subagent.duration'] ?? []).map((d) => [
      d.attributes.role,
      (d.value as { count: number }).count,
    ]);
    expect(durations).toEqual([['explorer', 2]]);
  });
});
