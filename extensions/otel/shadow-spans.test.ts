import { InMemorySpanExporter } from '@opentelemetry/sdk-trace-base';
import { block, createRuntime, runConversation } from 'hermes-extensions';
import { memoryLogger, scriptedModel, toolCall } from 'hermes-extensions/testing';
import { describe, expect, it } from 'vitest';
import { ext } from '../../test/support/helpers.js';
import { createOtelExtension } from './index.js';

describe('extensions/otel: a guard in shadow mode', () => {
  it('marks the call it would have refused, on the tool span and its decision event', async () => {
    const exporter = new InMemorySpanExporter();
    const runtime = await createRuntime({
      extensions: [
        ext('new-guard', (h) => h.on('intercept_tool_call', () => block('no'), { tools: 'write' })),
        createOtelExtension({ spanExporter: exporter }),
      ],
      config: { extensions: { 'new-guard': { mode: 'shadow' } } },
      logger: memoryLogger(),
    });
    await runConversation({
      runtime,
      sessionId: 's1',
      userMessage: 'go',
      systemPrompt: '',
      model: scriptedModel([
        { content: '', toolCalls: [toolCall('write', { path: 'b' }, 'w1')] },
        { content: 'done' },
      ]),
      tools: { write: { execute: () => 'written' } },
    });
    const write = exporter.getFinishedSpans().find((s) => s.name === 'tool.write');
    expect(write?.attributes).toMatchObject({
      'hermes.tool.outcome': 'ok',
      'hermes.hook.would_block': true,
      'hermes.extension.shadowed': 'new-guard',
    });
    expect(write?.events[0]?.attributes).toMatchObject({
      'hermes.hook.blocked': false,
      'hermes.hook.would_block': true,
    });
  });
});
