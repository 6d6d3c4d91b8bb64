import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { block, createRuntime, runConversation } from 'hermes-extensions';
import { memoryLogger, scriptedModel, toolCall } from 'hermes-extensions/testing';
import { describe, expect, it } from 'vitest';
import { tree } from '../../test/support/fixtures.js';
import { ext } from '../../test/support/helpers.js';
import auditLog from './index.js';

async function linesOf(file: string, count: number): Promise<Array<Record<string, unknown>>> {
  for (let i = 0; i < 200; i++) {
    if (existsSync(file)) {
      const read = readFileSync(file, 'utf8').trim().split('\n').filter(Boolean);
      if (read.length >= count) return read.map((line) => JSON.parse(line));
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`${file} never reached ${count} lines`);
}

describe('audit-log: a guard in shadow mode', () => {
  it('writes the decision it would have made beside the call that ran', async () => {
    const project = tree();
    const runtime = await createRuntime({
      extensions: [
        ext('new-guard', (h) =>
          h.on('intercept_tool_call', () => block('writes need a plan'), { tools: 'write' }),
        ),
        auditLog,
      ],
      cwd: project,
      config: { extensions: { 'new-guard': { mode: 'shadow' } } },
      logger: memoryLogger(),
    });
    await runConversation({
      runtime,
      sessionId: 's',
      userMessage: 'go',
      systemPrompt: '',
      model: scriptedModel([
        { content: '', toolCalls: [toolCall('write', { path: 'b' }, 'w1')] },
        { content: 'done' },
      ]),
      tools: { write: { execute: () => 'written' } },
    });
    await runtime.close();
    const log = await linesOf(join(project, '.hermes/audit/audit.jsonl'), 2);
    expect(log.map((l) => [l.event, l.tool_name, l.status ?? l.would_block])).toEqual([
      ['hook_decision', 'write', true],
      ['post_tool_call', 'write', 'ok'],
    ]);
    expect(log[0]).toMatchObject({
      blocked: false,
      shadow: [{ extension: 'new-guard', action: 'block', message: 'writes need a plan' }],
    });
  });
});
