import {
  type ApprovalRequest,
  ask,
  block,
  type RunConversationOptions,
  type Runtime,
  restrictTools,
  rewrite,
  runConversation,
  type Tools,
} from 'hermes-extensions';
import { scriptedModel, toolCall } from 'hermes-extensions/testing';
import { describe, expect, it, vi } from 'vitest';
import { ext, runtimeOf } from '../support/helpers.js';

function tools() {
  const write = vi.fn(({ path }: Record<string, unknown>) => `wrote ${path}`);
  const read = vi.fn(({ path }: Record<string, unknown>) => `read ${path}`);
  const set: Tools = {
    write: { description: 'Write a file', execute: write },
    read: { description: 'Read a file', execute: read },
    terminal: { execute: () => 'ran' },
  };
  return { set, write, read };
}

/** An extension that sandboxes writes and asks a person about every write outside plans/. */
const askingGuard = ext('careful', (h) => {
  h.on(
    'intercept_tool_call',
    (e) => rewrite({ ...e.toolArgs, path: `sandbox/${e.toolArgs.path}` }),
    {
      tools: 'write',
    },
  );
  h.on('intercept_tool_call', () => ask('writes outside plans/ need a look'), {
    tools: 'write',
    phase: 'validate',
  });
});

const oneWrite = () =>
  scriptedModel([
    { content: '', toolCalls: [toolCall('write', { path: 'a.ts' }, 'w1')] },
    { content: 'done' },
  ]);

function converse(runtime: Runtime, options: Partial<RunConversationOptions>) {
  return runConversation({
    runtime,
    sessionId: 's',
    turnId: 't1',
    systemPrompt: 'You are an agent.',
    userMessage: 'go',
    model: oneWrite(),
    tools: tools().set,
    ...options,
  });
}

describe('runConversation: asking a person', () => {
  it('asks the approver about the call as it would run; approved, the tool runs', async () => {
    const { runtime } = await runtimeOf([askingGuard]);
    const t = tools();
    const requests: ApprovalRequest[] = [];
    const result = await converse(runtime, {
      tools: t.set,
      taskId: 'task-9',
      approve: async (request) => {
        requests.push(request);
        return true;
      },
    });
    expect(requests).toEqual([
      {
        toolName: 'write',
        toolArgs: { path: 'sandbox/a.ts' },
        toolCallId: 'w1',
        message: 'writes outside plans/ need a look',
        askedBy: 'careful',
        sessionId: 's',
        turnId: 't1',
        taskId: 'task-9',
      },
    ]);
    expect(t.write).toHaveBeenCalledWith({ path: 'sandbox/a.ts' });
    expect(result.toolCalls[0]).toMatchObject({
      blocked: false,
      status: 'ok',
      result: 'wrote sandbox/a.ts',
      approval: { asked: 'writes outside plans/ need a look', askedBy: 'careful', approved: true },
    });
  });

  it('declined, the tool does not run and the model is told who asked and that the person declined', async () => {
    const { runtime } = await runtimeOf([askingGuard]);
    const t = tools();
    const model = oneWrite();
    const result = await converse(runtime, { tools: t.set, model, approve: () => false });
    expect(t.write).not.toHaveBeenCalled();
    const expected = {
      error:
        'needs approval: writes outside plans/ need a look (asked by careful); the person declined',
      blocked_by_extension: true,
      extension: 'careful',
      approval: 'declined',
    };
    expect(result.toolCalls[0]).toMatchObject({
      blocked: true,
      blockedBy: 'careful',
      status: 'blocked',
      approval: { askedBy: 'careful', approved: false },
    });
    expect(result.toolCalls[0]?.approval?.failure).toBeUndefined();
    expect(JSON.parse(result.toolCalls[0]?.result ?? '')).toEqual(expected);
    expect(model.requests[1]?.messages.at(-1)).toMatchObject({
      role: 'tool',
      toolCallId: 'w1',
      content: JSON.stringify(expected),
    });
    expect(result.finalResponse).toBe('done');
  });

  it('with no approver, an ask is a denial that says so', async () => {
    const { runtime } = await runtimeOf([askingGuard]);
    const t = tools();
    const result = await converse(runtime, { tools: t.set });
    expect(t.write).not.toHaveBeenCalled();
    expect(result.toolCalls[0]).toMatchObject({
      status: 'blocked',
      approval: { approved: false, failure: 'no approver configured' },
    });
    expect(JSON.parse(result.toolCalls[0]?.result ?? '')).toMatchObject({
      error:
        'needs approval: writes outside plans/ need a look (asked by careful); no approver configured',
      approval: 'unanswered',
    });
  });

  it('an approver that throws or rejects denies the call and the failure is reported', async () => {
    for (const approve of [
      () => {
        throw new Error('no terminal');
      },
      () => Promise.reject(new Error('no terminal')),
    ]) {
      const { runtime } = await runtimeOf([askingGuard]);
      const t = tools();
      const result = await converse(runtime, { tools: t.set, approve });
      expect(t.write).not.toHaveBeenCalled();
      expect(result.toolCalls[0]).toMatchObject({
        status: 'blocked',
        approval: { approved: false, failure: 'the approver failed: no terminal' },
      });
      expect(result.toolCalls[0]?.result).toMatch(/the approver failed: no terminal/);
    }
  });

  it('a later block wins over an ask: the approver is not asked', async () => {
    const { runtime } = await runtimeOf([
      askingGuard,
      ext('wall', (h) => h.on('intercept_tool_call', () => block('never'), { phase: 'validate' })),
    ]);
    const approve = vi.fn(() => true);
    const result = await converse(runtime, { approve });
    expect(approve).not.toHaveBeenCalled();
    expect(result.toolCalls[0]).toMatchObject({ blockedBy: 'wall', status: 'blocked' });
    expect(result.toolCalls[0]?.approval).toBeUndefined();
  });

  it('onHookOutcome is told the outcome with its ask, before the approver decides', async () => {
    const { runtime } = await runtimeOf([askingGuard]);
    const seen: string[] = [];
    await converse(runtime, {
      approve: () => {
        seen.push('approve');
        return true;
      },
      onHookOutcome: (r) => {
        if (r.hook === 'intercept_tool_call')
          seen.push(`outcome asked by ${r.outcome.blocked ? '-' : r.outcome.ask?.askedBy}`);
      },
    });
    expect(seen).toEqual(['outcome asked by careful', 'approve']);
  });
});

describe('runConversation: restricting the tools of a request', () => {
  it('tells before_llm_call the tools and offers the model only the ones left', async () => {
    const offered: Array<readonly string[] | undefined> = [];
    const { runtime } = await runtimeOf([
      ext('read-only', (h) =>
        h.on('before_llm_call', (e) => {
          offered.push(e.tools);
          return restrictTools((name) => name !== 'write' && name !== 'terminal', 'no plan yet');
        }),
      ),
    ]);
    const t = tools();
    const model = scriptedModel([
      { content: '', toolCalls: [toolCall('read', { path: 'a' }, 'r1')] },
      { content: 'done' },
    ]);
    const result = await converse(runtime, { tools: t.set, model });
    expect(offered).toEqual([
      ['write', 'read', 'terminal'],
      ['write', 'read', 'terminal'],
    ]);
    expect(model.requests.map((r) => r.tools)).toEqual([
      [{ name: 'read', description: 'Read a file' }],
      [{ name: 'read', description: 'Read a file' }],
    ]);
    expect(result.toolCalls[0]).toMatchObject({ status: 'ok', result: 'read a' });
  });

  it('a call to a hidden tool is refused before any handler, naming who hid it', async () => {
    const interceptor = vi.fn();
    const { runtime } = await runtimeOf([
      ext('read-only', (h) => {
        h.on('before_llm_call', () => restrictTools(['read'], 'no plan yet'));
        h.on('intercept_tool_call', interceptor);
      }),
    ]);
    const t = tools();
    const result = await converse(runtime, { tools: t.set });
    expect(t.write).not.toHaveBeenCalled();
    expect(interceptor).not.toHaveBeenCalled();
    expect(result.toolCalls[0]).toMatchObject({ blockedBy: 'read-only', status: 'blocked' });
    expect(JSON.parse(result.toolCalls[0]?.result ?? '').error).toBe(
      'Tool "write" cannot be called: extension "read-only" took it away for this request (no plan yet). Tools offered: read.',
    );
  });
});
