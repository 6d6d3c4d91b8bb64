import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateText, stepCountIs, tool } from 'ai';
import { ask, createApprovalMemory, createRuntime, type ObserverPayload } from 'hermes-extensions';
import { withHermes } from 'hermes-extensions/ai-sdk';
import { memoryLogger } from 'hermes-extensions/testing';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { answer, callOf, MockLanguageModel } from '../support/ai-sdk-mock.js';
import { ext } from '../support/helpers.js';

/** The AI SDK host with an in-process approver remembers `always` answers as the reference loop does. */
describe('hermes-extensions/ai-sdk: remembered approvals', () => {
  it('an "always" answer is not asked again in a later session; another path, and a re-cloned project, are', async () => {
    const root = mkdtempSync(join(tmpdir(), 'ai-sdk-remembered-'));
    const project = join(root, 'project');
    mkdirSync(join(project, '.git'), { recursive: true });
    const memory = createApprovalMemory({ project, home: join(root, 'home') });
    const events: ObserverPayload[] = [];
    const runtime = await createRuntime({
      logger: memoryLogger(),
      extensions: [
        ext('careful', (h) =>
          h.on(
            'intercept_tool_call',
            (e) => ask('writes need a look', undefined, { args: { path: e.toolArgs.path } }),
            { tools: 'write' },
          ),
        ),
        ext('recorder', (h) => h.observe('post_approval_response', (p) => void events.push(p))),
      ],
    });
    const ran: string[] = [];
    const asked: string[] = [];
    const tools = {
      write: tool({
        description: 'Write a file',
        inputSchema: z.object({ path: z.string() }),
        execute: async ({ path }) => {
          ran.push(path);
          return `wrote ${path}`;
        },
      }),
    };
    for (const [sessionId, path] of [
      ['s1', 'a.ts'],
      ['s2', 'a.ts'],
      ['s3', 'b.ts'],
      ['s4', 'a.ts'],
    ] as const) {
      if (sessionId === 's4') {
        // Another repository cloned where the project was: its "always" answers are not this one's.
        rmSync(project, { recursive: true });
        mkdirSync(join(project, '.git'), { recursive: true });
      }
      const model = new MockLanguageModel({
        doGenerate: [callOf('write', 'w1', { path }), answer('Done.')],
      });
      await runtime.runTurn({ sessionId, turnId: 't1' }, async (turn) => {
        const call = await withHermes(turn, {
          prompt: 'write',
          model,
          tools,
          approvals: memory,
          approve: (request) => {
            asked.push(String(request.toolArgs.path));
            return sessionId === 's1' ? 'always' : false;
          },
        });
        return generateText({ ...call, stopWhen: stepCountIs(5) });
      });
    }
    await runtime.close();
    expect(asked).toEqual(['a.ts', 'b.ts', 'a.ts']);
    expect(ran).toEqual(['a.ts', 'a.ts']);
    expect(events.map((e) => [e.choice, e.answered_via])).toEqual([
      ['always', 'approver'],
      ['always', 'remembered'],
      ['deny', 'approver'],
      ['deny', 'approver'],
    ]);
  });
});
