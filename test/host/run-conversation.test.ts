import {
  block,
  blockedToolResult,
  type ModelClient,
  type Runtime,
  rewrite,
  runConversation,
  type Tools,
} from 'hermes-extensions';
import { scriptedModel, toolCall } from 'hermes-extensions/testing';
import { describe, expect, it, vi } from 'vitest';
import { ext, runtimeOf } from '../support/helpers.js';

function tools() {
  const write = vi.fn(({ path }: Record<string, unknown>) => `wrote ${path}`);
  const read = vi.fn(({ path }: Record<string, unknown>) => ({ path, text: 'hello' }));
  const set: Tools = {
    write: { execute: write },
    read: { description: 'Read a file', execute: read },
  };
  return { set, write, read };
}

const base = { sessionId: 's', systemPrompt: 'You are an agent.' };

/** One turn of the reference loop with the usual session and system prompt. */
const converse = (runtime: Runtime, model: ModelClient, tools: Tools, userMessage: string) =>
  runConversation({ ...base, runtime, model, tools, userMessage });

describe('runConversation', () => {
  it('runs a plain turn: user message last in the first request, tool results back as tool messages', async () => {
    const { runtime } = await runtimeOf([]);
    const t = tools();
    const model = scriptedModel([
      { content: 'Reading.', toolCalls: [toolCall('read', { path: 'a.txt' }, 'c1')] },
      { content: 'It says hello.' },
    ]);
    const history = [
      { role: 'user' as const, content: 'earlier' },
      { role: 'assistant' as const, content: 'ok' },
    ];
    const result = await runConversation({
      ...base,
      runtime,
      model,
      tools: t.set,
      userMessage: 'read a.txt',
      history,
    });
    expect(model.requests[0]?.messages.at(-1)).toEqual({ role: 'user', content: 'read a.txt' });
    expect(model.requests[0]?.tools).toEqual([
      { name: 'write' },
      { name: 'read', description: 'Read a file' },
    ]);
    expect(result).toEqual({
      finalResponse: 'It says hello.',
      blocked: false,
      cancelled: false,
      messages: [
        ...history,
        { role: 'user', content: 'read a.txt' },
        {
          role: 'assistant',
          content: 'Reading.',
          toolCalls: [{ id: 'c1', name: 'read', arguments: { path: 'a.txt' } }],
        },
        {
          role: 'tool',
          content: '{"path":"a.txt","text":"hello"}',
          toolCallId: 'c1',
          name: 'read',
        },
        { role: 'assistant', content: 'It says hello.' },
      ],
      toolCalls: [
        {
          id: 'c1',
          name: 'read',
          arguments: { path: 'a.txt' },
          requestedArguments: { path: 'a.txt' },
          blocked: false,
          rewritten: false,
          status: 'ok',
          result: '{"path":"a.txt","text":"hello"}',
        },
      ],
    });
    expect(history).toHaveLength(2);
  });

  it('a blocked input ends the turn with no model call', async () => {
    const { runtime } = await runtimeOf([
      ext('no-secrets', (h) =>
        h.on('transform_user_input', () => block('That looks like a secret.')),
      ),
    ]);
    const model = scriptedModel([]);
    const result = await runConversation({
      ...base,
      runtime,
      model,
      tools: {},
      userMessage: 'sk-123',
    });
    expect(result).toMatchObject({
      finalResponse: 'That looks like a secret.',
      blocked: true,
      toolCalls: [],
    });
    expect(model.requests).toHaveLength(0);
  });

  it('a rewritten input is what the model receives', async () => {
    const { runtime } = await runtimeOf([
      ext('router', (h) =>
        h.on('transform_user_input', (e) => rewrite(`/start-feature ${e.userMessage}`)),
      ),
    ]);
    const model = scriptedModel([{ content: 'Planning.' }]);
    await runConversation({ ...base, runtime, model, tools: {}, userMessage: 'fix the bug' });
    expect(model.requests[0]?.messages.at(-1)?.content).toBe('/start-feature fix the bug');
  });

  it('a blocked LLM call ends the turn with its message as the final response', async () => {
    const { runtime } = await runtimeOf([
      ext('budget', (h) =>
        h.on('before_llm_call', (e) => (e.iteration >= 1 ? block('Out of budget.') : undefined)),
      ),
    ]);
    const t = tools();
    const model = scriptedModel([
      { content: '', toolCalls: [toolCall('read', { path: 'a' })] },
      { content: 'never' },
    ]);
    const result = await converse(runtime, model, t.set, 'go');
    expect(result.finalResponse).toBe('Out of budget.');
    expect(result.blocked).toBe(true);
    expect(result.messages.at(-1)).toEqual({ role: 'assistant', content: 'Out of budget.' });
    expect(model.requests).toHaveLength(1);
  });

  it('a blocked tool does not run; the model gets blockedToolResult', async () => {
    const { runtime } = await runtimeOf([
      ext('guard', (h) =>
        h.on('intercept_tool_call', () => block('Plan first.'), { tools: 'write' }),
      ),
    ]);
    const t = tools();
    const model = scriptedModel([
      { content: '', toolCalls: [toolCall('write', { path: 'src/a.ts' }, 'w1')] },
      { content: 'Understood.' },
    ]);
    const result = await converse(runtime, model, t.set, 'edit');
    expect(t.write).not.toHaveBeenCalled();
    const expected = '{"error":"Plan first.","blocked_by_extension":true,"extension":"guard"}';
    expect(result.toolCalls[0]).toMatchObject({
      blocked: true,
      blockedBy: 'guard',
      result: expected,
    });
    expect(model.requests[1]?.messages.at(-1)).toEqual({
      role: 'tool',
      content: expected,
      toolCallId: 'w1',
      name: 'write',
    });
    expect(result.blocked).toBe(false);
    expect(result.finalResponse).toBe('Understood.');
  });

  it('rewritten args are the ones the tool runs with', async () => {
    const { runtime } = await runtimeOf([
      ext('sandbox', (h) =>
        h.on('intercept_tool_call', (e) =>
          rewrite({ ...e.toolArgs, path: `sandbox/${e.toolArgs.path}` }),
        ),
      ),
    ]);
    const t = tools();
    const model = scriptedModel([
      { content: '', toolCalls: [toolCall('write', { path: 'a.ts' })] },
      { content: 'ok' },
    ]);
    const result = await converse(runtime, model, t.set, 'write');
    expect(t.write).toHaveBeenCalledWith({ path: 'sandbox/a.ts' });
    expect(result.toolCalls[0]).toMatchObject({
      arguments: { path: 'sandbox/a.ts' },
      requestedArguments: { path: 'a.ts' },
      rewritten: true,
      result: 'wrote sandbox/a.ts',
    });
  });

  it('handles several tool calls in one response, each through the chain, in order', async () => {
    const { runtime } = await runtimeOf([
      ext('guard', (h) =>
        h.on('intercept_tool_call', (e) => {
          e.state.seen = [...((e.state.seen as string[]) ?? []), String(e.toolArgs.path)];
          return String(e.toolArgs.path).startsWith('src/') ? block('not src') : undefined;
        }),
      ),
    ]);
    const t = tools();
    const model = scriptedModel([
      {
        content: '',
        toolCalls: [
          toolCall('write', { path: 'plans/p.md' }, 'a'),
          toolCall('write', { path: 'src/x.ts' }, 'b'),
          toolCall('read', { path: 'src/y.ts' }, 'c'),
        ],
      },
      { content: 'done' },
    ]);
    const result = await converse(runtime, model, t.set, 'go');
    expect(result.toolCalls.map((c) => [c.id, c.blocked])).toEqual([
      ['a', false],
      ['b', true],
      ['c', true],
    ]);
    expect(t.write).toHaveBeenCalledTimes(1);
    expect(t.read).not.toHaveBeenCalled();
    expect(
      model.requests[1]?.messages.slice(-3).map((m) => (m.role === 'tool' ? m.toolCallId : m.role)),
    ).toEqual(['a', 'b', 'c']);
  });

  it('refuses unknown tools and reports tool errors to the model instead of throwing', async () => {
    const { runtime } = await runtimeOf([]);
    const model = scriptedModel([
      { content: '', toolCalls: [toolCall('nope', {}, 'x'), toolCall('fails', {}, 'y')] },
      { content: 'recovered' },
    ]);
    const failing: Tools = {
      fails: {
        execute: () => {
          throw new Error('disk full');
        },
      },
    };
    const result = await converse(runtime, model, failing, 'go');
    expect(
      result.toolCalls.map((c) => [c.status, c.blockedBy, JSON.parse(c.result).error]),
    ).toEqual([
      [
        'blocked',
        'hermes',
        'Tool "nope" cannot be called: it was not offered in this request. Tools offered: fails.',
      ],
      ['error', undefined, 'tool "fails" failed: disk full'],
    ]);
    expect(result.finalResponse).toBe('recovered');
  });

  it('stops after maxIterations model requests', async () => {
    const { runtime } = await runtimeOf([]);
    const t = tools();
    const loop = () => ({ content: 'again', toolCalls: [toolCall('read', { path: 'a' })] });
    const model = scriptedModel([loop, loop, loop, loop]);
    const result = await runConversation({
      ...base,
      runtime,
      model,
      tools: t.set,
      userMessage: 'go',
      maxIterations: 3,
    });
    expect(model.requests).toHaveLength(3);
    expect(result.toolCalls).toHaveLength(3);
    expect(result.blocked).toBe(false);
  });

  it('runs as a turn: state is shared across the hooks and gone afterwards', async () => {
    const { runtime } = await runtimeOf([
      ext('memory', (h) => {
        h.on('transform_user_input', (e) => {
          e.state.started = true;
        });
        h.on('intercept_tool_call', (e) => (e.state.started ? undefined : block('state lost')));
      }),
    ]);
    const t = tools();
    const model = scriptedModel([
      { content: '', toolCalls: [toolCall('read', { path: 'a' })] },
      { content: 'ok' },
    ]);
    const result = await converse(runtime, model, t.set, 'go');
    expect(result.toolCalls[0]?.blocked).toBe(false);
    expect(runtime.getTurnState('s')).toBeUndefined();
  });

  it('tells onHookOutcome of every chain run, in order', async () => {
    const { runtime } = await runtimeOf([
      ext('guard', (h) => {
        h.on('transform_user_input', (e) => rewrite(`!${e.userMessage}`));
        h.on('intercept_tool_call', () => block('no'), { tools: 'write' });
      }),
    ]);
    const t = tools();
    const model = scriptedModel([
      {
        content: '',
        toolCalls: [toolCall('read', { path: 'a' }, 'r'), toolCall('write', { path: 'b' }, 'w')],
      },
      { content: 'done' },
    ]);
    const reports: unknown[] = [];
    await runConversation({
      ...base,
      runtime,
      model,
      tools: t.set,
      userMessage: 'go',
      onHookOutcome: (r) =>
        reports.push([r.hook, r.iteration, r.toolCall?.id, r.outcome.blocked, r.outcome.changed]),
    });
    expect(reports).toEqual([
      ['transform_user_input', undefined, undefined, false, true],
      ['before_llm_call', 0, undefined, false, false],
      ['intercept_tool_call', 0, 'r', false, false],
      ['intercept_tool_call', 0, 'w', true, false],
      ['before_llm_call', 1, undefined, false, false],
    ]);
  });

  it('blockedToolResult is the JSON docs/hosts.md gives', () => {
    expect(
      JSON.parse(
        blockedToolResult({
          blocked: true,
          message: 'm',
          blockedBy: 'x',
          changed: false,
          value: {},
          metadata: {},
          trace: [],
        }),
      ),
    ).toEqual({ error: 'm', blocked_by_extension: true, extension: 'x' });
  });
});

describe('scriptedModel', () => {
  it('fails loudly when asked more often than scripted', async () => {
    const model = scriptedModel([{ content: 'one' }]);
    await model.complete({ systemPrompt: '', messages: [], tools: [] });
    await expect(model.complete({ systemPrompt: '', messages: [], tools: [] })).rejects.toThrow(
      /request #2/,
    );
  });
});
