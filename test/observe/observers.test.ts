import {
  block,
  createRuntime,
  type ObserverPayload,
  runConversation,
  type Tools,
} from 'hermes-extensions';
import { memoryLogger, scriptedModel, toolCall } from 'hermes-extensions/testing';
import { describe, expect, it } from 'vitest';
import { ext } from '../support/helpers.js';

/** A runtime with a guard that blocks writes and an extension that records every event. */
async function observed(extra: Parameters<typeof ext>[1][] = []) {
  const events: ObserverPayload[] = [];
  const logger = memoryLogger();
  const runtime = await createRuntime({
    logger,
    extensions: [
      ext('guard', (h) =>
        h.on('intercept_tool_call', () => block('no writes'), { tools: 'write' }),
      ),
      ext('recorder', (h) => h.observe('*', (payload) => void events.push(payload))),
      ...extra.map((setup, i) => ext(`extra-${i}`, setup)),
    ],
  });
  return { runtime, events, logger };
}

const tools = (): Tools => ({
  read: { execute: ({ path }) => `contents of ${path}` },
  write: { execute: () => 'written' },
});

describe('observer events of the reference loop', () => {
  it('reports a turn in order: session, llm, api requests, tool calls (ok and blocked), decisions', async () => {
    const { runtime, events } = await observed();
    const model = scriptedModel(
      [
        {
          content: 'working',
          toolCalls: [
            toolCall('read', { path: 'a' }, 'r1'),
            toolCall('write', { path: 'b' }, 'w1'),
          ],
          usage: { input_tokens: 5 },
        },
        { content: 'done' },
      ],
      { name: 'test-model' },
    );
    const result = await runConversation({
      runtime,
      sessionId: 's1',
      turnId: 't1',
      userMessage: 'go',
      systemPrompt: 'sys',
      model,
      tools: tools(),
    });
    expect(result.finalResponse).toBe('done');
    expect(events.map((e) => [e.event, e.tool_name ?? e.hook ?? '', e.status ?? ''])).toEqual([
      ['on_session_start', '', ''],
      ['pre_llm_call', '', ''],
      ['pre_api_request', '', ''],
      ['post_api_request', '', ''],
      ['pre_tool_call', 'read', ''],
      ['post_tool_call', 'read', 'ok'],
      ['pre_tool_call', 'write', ''],
      ['hook_decision', 'write', ''],
      ['post_tool_call', 'write', 'blocked'],
      ['pre_api_request', '', ''],
      ['post_api_request', '', ''],
      ['post_llm_call', '', ''],
      ['on_session_end', '', ''],
    ]);
    for (const e of events) {
      expect(e).toMatchObject({
        telemetry_schema_version: 'hermes.observer.v1',
        session_id: 's1',
        turn_id: 't1',
        task_id: 't1',
        platform: 'cli',
        model: 'test-model',
      });
    }
    const [firstRequest, secondRequest] = events.filter((e) => e.event === 'pre_api_request');
    expect([firstRequest?.api_call_count, secondRequest?.api_call_count]).toEqual([1, 2]);
    for (const e of events.filter((e) => e.event.includes('tool') || e.event === 'hook_decision')) {
      expect(e.api_request_id).toBe(firstRequest?.api_request_id);
    }
    expect(
      events.find((e) => e.event === 'post_tool_call' && e.tool_name === 'read'),
    ).toMatchObject({
      tool_call_id: 'r1',
      result: 'contents of a',
      duration_ms: expect.any(Number),
    });
    expect(events.find((e) => e.event === 'hook_decision')).toMatchObject({
      hook: 'intercept_tool_call',
      blocked: true,
      blocked_by: 'guard',
      message: 'no writes',
      decided_by: ['guard'],
      tool_call_id: 'w1',
    });
    expect(events.find((e) => e.event === 'post_api_request')).toMatchObject({
      finish_reason: 'tool_calls',
      assistant_tool_call_count: 2,
      usage: { input_tokens: 5 },
    });
    expect(events.at(-1)).toMatchObject({
      event: 'on_session_end',
      completed: true,
      interrupted: false,
      reason: 'completed',
    });
    expect(
      new Set(events.filter((e) => e.event === 'pre_api_request').map((e) => e.api_request_id))
        .size,
    ).toBe(2);
  });

  it('reports an API error and ends the session as not completed', async () => {
    const { runtime, events } = await observed();
    const model = scriptedModel([
      () => {
        throw Object.assign(new Error('rate limited; key sk-abcdefghijklmnop1234'), {
          name: 'RateLimitError',
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
        tools: {},
      }),
    ).rejects.toThrow('rate limited');
    const error = events.find((e) => e.event === 'api_request_error');
    expect(error).toMatchObject({
      api_call_count: 1,
      error: { type: 'RateLimitError', message: 'rate limited; key [REDACTED]' },
    });
    expect(events.at(-1)).toMatchObject({
      event: 'on_session_end',
      completed: false,
      reason: 'error',
    });
  });

  it('reports cancelled tool calls when the turn is cancelled', async () => {
    const { runtime, events } = await observed();
    const controller = new AbortController();
    const slow: Tools = {
      long: {
        execute: (_args, context) =>
          new Promise((_, reject) => {
            context?.signal?.addEventListener('abort', () => reject(new Error('aborted')));
            controller.abort();
          }),
      },
      read: { execute: () => 'never' },
    };
    const model = scriptedModel([
      { content: '', toolCalls: [toolCall('long', {}, 'l1'), toolCall('read', {}, 'r1')] },
    ]);
    const result = await runConversation({
      runtime,
      sessionId: 's',
      userMessage: 'go',
      systemPrompt: '',
      model,
      tools: slow,
      signal: controller.signal,
    });
    expect(result.cancelled).toBe(true);
    expect(result.toolCalls.map((c) => c.status)).toEqual(['cancelled', 'cancelled']);
    expect(events.filter((e) => e.event === 'post_tool_call').map((e) => e.status)).toEqual([
      'cancelled',
      'cancelled',
    ]);
    expect(events.at(-1)).toMatchObject({
      event: 'on_session_end',
      completed: false,
      interrupted: true,
      reason: 'cancelled',
    });
  });

  it('redacts sensitive keys, bearer tokens and API keys, and bounds long values', async () => {
    const { runtime, events } = await observed();
    const args = {
      path: 'a',
      api_key: 'secret-value',
      headers: { Authorization: 'x' },
      note: 'use Bearer abcdefghijklmnop now',
      blob: 'x'.repeat(10_000),
    };
    const model = scriptedModel([
      { content: '', toolCalls: [toolCall('read', args)] },
      { content: 'ok' },
    ]);
    await runConversation({
      runtime,
      sessionId: 's',
      userMessage: 'go',
      systemPrompt: '',
      model,
      tools: tools(),
    });
    const pre = events.find((e) => e.event === 'pre_tool_call') as ObserverPayload & {
      args: Record<string, unknown>;
    };
    expect(pre.args.api_key).toBe('[REDACTED]');
    expect(pre.args.headers).toEqual({ Authorization: '[REDACTED]' });
    expect(pre.args.note).toBe('use Bearer [REDACTED] now');
    expect(String(pre.args.blob)).toMatch(/^x{4096}\[Truncated: 5904 more characters\]$/);
    expect(Object.isFrozen(pre)).toBe(true);
  });

  it('lets neither a throwing nor a hanging observer change or slow the turn', async () => {
    const run = async (setups: Parameters<typeof ext>[1][]) => {
      const { runtime, logger } = await observed(setups);
      const model = scriptedModel([
        {
          content: '',
          toolCalls: [toolCall('read', { path: 'a' }), toolCall('write', { path: 'b' })],
        },
        { content: 'done' },
      ]);
      const result = await runConversation({
        runtime,
        sessionId: 's',
        userMessage: 'go',
        systemPrompt: '',
        model,
        tools: tools(),
      });
      return { result, logger };
    };
    const plain = await run([]);
    const troubled = await run([
      (h) =>
        h.observe('*', () => {
          throw new Error('observer bug');
        }),
      (h) => h.observe('post_tool_call', () => new Promise(() => {})),
      (h) => h.observe('pre_tool_call', () => Promise.reject(new Error('async observer bug'))),
    ]);
    const strip = (r: typeof plain.result) =>
      JSON.stringify({ ...r, toolCalls: r.toolCalls.map((c) => ({ ...c, id: '' })) }).replace(
        /call_\d+/g,
        '',
      );
    expect(strip(troubled.result)).toBe(strip(plain.result));
    await new Promise((resolve) => setTimeout(resolve, 0));
    const warnings = troubled.logger.lines.filter((l) => l.level === 'warn').map((l) => l.message);
    expect(warnings).toHaveLength(2);
    expect(warnings.join('\n')).toMatch(
      /\[hermes:extra-0\] observer of every event failed \(Error: observer bug\)/,
    );
    expect(warnings.join('\n')).toMatch(
      /\[hermes:extra-2\] observer of pre_tool_call failed \(Error: async observer bug\)/,
    );
  });
});

describe('hermes.observe', () => {
  it('makes hasHook true for observed events only, and rejects unknown events with a suggestion', async () => {
    const runtime = await createRuntime({
      logger: memoryLogger(),
      extensions: [
        ext('tools', (h) => h.observe('post_tool_call', () => undefined)),
        ext('typo', (h) => h.observe('post_tool_cal' as never, () => undefined)),
      ],
    });
    expect(runtime.hasHook('post_tool_call')).toBe(true);
    expect(runtime.hasHook('pre_api_request')).toBe(false);
    expect(runtime.extensions.find((e) => e.name === 'typo')?.status).toBe('error');
    expect(runtime.diagnostics.map((d) => d.message).join('\n')).toMatch(
      /Did you mean "post_tool_call"/,
    );
  });
});

describe('sanitize', () => {
  it('redacts secrets by key name, not counts that mention tokens', async () => {
    const { sanitize } = await import('hermes-extensions');
    expect(
      sanitize({
        apiKey: 'a',
        access_token: 'b',
        clientSecret: 'c',
        'X-Api-Key': 'd',
        Cookie: 'e',
        input_tokens: 5,
        max_tokens: 10,
        tokenizer: 'cl100k',
        nested: [{ password: 'p' }],
        when: new Date(0),
        fn: () => 1,
        big: 10n,
      }),
    ).toEqual({
      apiKey: '[REDACTED]',
      access_token: '[REDACTED]',
      clientSecret: '[REDACTED]',
      'X-Api-Key': '[REDACTED]',
      Cookie: '[REDACTED]',
      input_tokens: 5,
      max_tokens: 10,
      tokenizer: 'cl100k',
      nested: [{ password: '[REDACTED]' }],
      when: '1970-01-01T00:00:00.000Z',
      big: '10',
    });
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = cyclic;
    expect(sanitize(cyclic)).toEqual({ a: 1, self: '[Circular]' });
    expect((sanitize(Array.from({ length: 150 }, (_, i) => i)) as unknown[]).at(-1)).toBe(
      '[Truncated: 50 more items]',
    );
  });
});

describe('the unobserved path', () => {
  it('builds no attempt, id or payload when nobody observes', async () => {
    const { UNOBSERVED_ATTEMPT } = await import('../../src/observe/turn-telemetry.js');
    const { turnTelemetry } = await import('../../src/runtime/turn.js');
    const quiet = await createRuntime({ extensions: [], logger: memoryLogger() });
    const request = { systemPrompt: '', messages: [], tools: [] };
    const idle = await quiet.runTurn({ sessionId: 's' }, turnTelemetry);
    expect(idle.active).toBe(false);
    expect(idle.preApi(request)).toBe(UNOBSERVED_ATTEMPT);
    const { runtime } = await observed();
    const busy = await runtime.runTurn({ sessionId: 's' }, turnTelemetry);
    expect(busy.active).toBe(true);
    expect(busy.preApi(request)).toMatchObject({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      count: 1,
    });
  });
});

describe('a trial turn (doctor, `hermes extensions test`)', () => {
  it('runs the chains as for the agent and tells no observer', async () => {
    const { runtime, events } = await observed();
    const outcome = await runtime.runTurn({ sessionId: 'trial', trial: true }, (turn) =>
      turn.interceptToolCall({ toolName: 'write', toolArgs: { path: 'a' } }),
    );
    expect(outcome).toMatchObject({ blocked: true, blockedBy: 'guard' });
    // The same call in an agent's turn is heard: the trial's silence is the flag's doing.
    await runtime.runTurn({ sessionId: 'agent' }, (turn) =>
      turn.interceptToolCall({ toolName: 'write', toolArgs: { path: 'a' } }),
    );
    expect(events.map((e) => [e.event, e.session_id])).toEqual([['hook_decision', 'agent']]);
  });
});
