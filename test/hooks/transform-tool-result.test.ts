import {
  block,
  type ObserverPayload,
  rewrite,
  runConversation,
  type Tools,
} from 'hermes-extensions';
import { mapStrings } from 'hermes-extensions/policy';
import { scriptedModel, toolCall } from 'hermes-extensions/testing';
import { describe, expect, it } from 'vitest';
import { ext, inTurn, runtimeOf } from '../support/helpers.js';

const SECRET = 'sk-live-0123456789';

/** Replaces the secret wherever the result holds it, whatever the result's shape. */
const redactor = ext('redact', (h) =>
  h.on('transform_tool_result', (event) => {
    const redacted = mapStrings(event.result, (s) => s.replaceAll(SECRET, '[redacted]'));
    return redacted === event.result ? undefined : rewrite(redacted);
  }),
);

const leakyTools: Tools = {
  env: { execute: () => ({ stdout: `TOKEN=${SECRET}\n`, exitCode: 0 }) },
  echo: { execute: ({ text }) => String(text) },
};

/** One turn of the reference loop: the model calls `calls`, then answers `done`. */
async function converse(
  extensions: Parameters<typeof runtimeOf>[0],
  calls: ReturnType<typeof toolCall>[],
  tools: Tools = leakyTools,
  observed: ObserverPayload[] = [],
) {
  const observer = ext('observer', (h) => h.observe('post_tool_call', (p) => observed.push(p)));
  const { runtime, logger } = await runtimeOf([...extensions, observer]);
  const model = scriptedModel([{ content: '', toolCalls: calls }, { content: 'done' }]);
  const result = await runConversation({
    runtime,
    sessionId: 's',
    systemPrompt: 'You are an agent.',
    userMessage: 'go',
    model,
    tools,
  });
  await runtime.close();
  const toolMessages = model.requests[1]?.messages.filter((m) => m.role === 'tool') ?? [];
  return { result, toolMessages, logger };
}

describe('transform_tool_result in the reference loop', () => {
  it('a binary result (Buffer, Uint8Array, ArrayBuffer, nested) reaches the redactor and the model as its UTF-8 text', async () => {
    const text = `TOKEN=${SECRET}\n`;
    const tools: Tools = {
      buffer: { execute: () => Buffer.from(text) },
      nested: { execute: () => ({ stdout: new TextEncoder().encode(text), exitCode: 0 }) },
      arraybuffer: { execute: () => new TextEncoder().encode(text).buffer },
    };
    const { toolMessages } = await converse(
      [redactor],
      ['buffer', 'nested', 'arraybuffer'].map((name, i) => toolCall(name, {}, `c${i}`)),
      tools,
    );
    expect(toolMessages.map((m) => m.content)).toEqual([
      'TOKEN=[redacted]\n',
      '{"stdout":"TOKEN=[redacted]\\n","exitCode":0}',
      'TOKEN=[redacted]\n',
    ]);
  });

  it('binary data that is not UTF-8 text is the tool failing: the model never gets its bytes', async () => {
    const tools: Tools = { dump: { execute: () => Buffer.from([0xff, 0xfe, 0x41, 0x42]) } };
    const { toolMessages } = await converse([redactor], [toolCall('dump', {}, 'c1')], tools);
    expect(toolMessages[0]?.content).toMatch(
      /tool \\"dump\\" failed: .*binary data .*not UTF-8 text/,
    );
    expect(toolMessages[0]?.content).not.toMatch(/255/);
  });

  it('a secret that is an object key is redacted', async () => {
    const tools: Tools = { env: { execute: () => ({ [SECRET]: 'set' }) } };
    const { toolMessages } = await converse([redactor], [toolCall('env', {}, 'c1')], tools);
    expect(toolMessages[0]?.content).toBe('{"[redacted]":"set"}');
  });

  it('rewrites what the model gets, and observers get the rewritten result too', async () => {
    const observed: ObserverPayload[] = [];
    const { result, toolMessages } = await converse(
      [redactor],
      [toolCall('env', {}, 'c1')],
      leakyTools,
      observed,
    );
    expect(toolMessages[0]?.content).toBe('{"stdout":"TOKEN=[redacted]\\n","exitCode":0}');
    expect(result.toolCalls[0]).toMatchObject({ status: 'ok', resultRewritten: true });
    expect(JSON.stringify(result.messages)).not.toContain(SECRET);
    expect(JSON.stringify(observed)).not.toContain(SECRET);
    expect(observed[0]?.result).toContain('[redacted]');
  });

  it('puts a refusal in place of a blocked result, naming the extension', async () => {
    const hide = ext('hide-env', (h) =>
      h.on('transform_tool_result', () => block('environment dumps stay local'), {
        tools: 'env',
      }),
    );
    const { result, toolMessages } = await converse(
      [hide],
      [toolCall('env', {}, 'c1'), toolCall('echo', { text: 'hi' }, 'c2')],
    );
    expect(JSON.parse(toolMessages[0]?.content ?? '')).toEqual({
      error: 'environment dumps stay local',
      blocked_by_extension: true,
      extension: 'hide-env',
    });
    // `tools` scopes the handler: the other tool's result passes untouched.
    expect(toolMessages[1]?.content).toBe('hi');
    expect(result.toolCalls.map((c) => c.resultBlockedBy)).toEqual(['hide-env', undefined]);
  });

  it('fails closed: a redactor that throws hides the result instead of passing the secret on', async () => {
    const broken = ext('broken-redactor', (h) =>
      h.on('transform_tool_result', () => {
        throw new Error('pattern file missing');
      }),
    );
    const { result, toolMessages } = await converse([broken], [toolCall('env', {}, 'c1')]);
    expect(toolMessages[0]?.content).not.toContain(SECRET);
    expect(JSON.parse(toolMessages[0]?.content ?? '')).toMatchObject({
      blocked_by_extension: true,
      extension: 'broken-redactor',
    });
    expect(toolMessages[0]?.content).toContain('pattern file missing');
    expect(result.toolCalls[0]?.resultBlockedBy).toBe('broken-redactor');
  });

  it('refuses a rewrite that is not JSON data, failing closed', async () => {
    const bad = ext('bad-rewrite', (h) =>
      h.on('transform_tool_result', () => rewrite(new Map([['a', 1]]) as unknown)),
    );
    const { toolMessages } = await converse([bad], [toolCall('env', {}, 'c1')]);
    expect(toolMessages[0]?.content).not.toContain(SECRET);
    expect(toolMessages[0]?.content).toContain('bad-rewrite');
  });

  it('threads rewrites: each handler sees the result as the one before left it', async () => {
    const seen: unknown[] = [];
    const first = ext('shorten', (h) =>
      h.on('transform_tool_result', (e) => rewrite(String(e.result).slice(0, 5)), { priority: 1 }),
    );
    const second = ext('upper', (h) =>
      h.on(
        'transform_tool_result',
        (e) => {
          seen.push(e.result);
          return rewrite(String(e.result).toUpperCase());
        },
        { priority: 2 },
      ),
    );
    const { toolMessages } = await converse(
      [second, first],
      [toolCall('echo', { text: 'hello world' }, 'c1')],
    );
    expect(seen).toEqual(['hello']);
    expect(toolMessages[0]?.content).toBe('HELLO');
  });

  it('hands a failed tool its error with isError, and the arguments the tool ran with', async () => {
    const events: { isError: boolean; result: unknown; toolArgs: unknown }[] = [];
    const watch = ext('watch', (h) =>
      h.on('transform_tool_result', (e) => {
        events.push({ isError: e.isError, result: e.result, toolArgs: e.toolArgs });
      }),
    );
    const fixArgs = ext('fix-args', (h) =>
      h.on('intercept_tool_call', (e) => rewrite({ ...e.toolArgs, text: 'fixed' })),
    );
    const tools: Tools = {
      ...leakyTools,
      fail: {
        execute: () => {
          throw new Error('disk full');
        },
      },
    };
    await converse(
      [watch, fixArgs],
      [toolCall('fail', {}, 'c1'), toolCall('echo', { text: 'asked' }, 'c2')],
      tools,
    );
    expect(events).toEqual([
      {
        isError: true,
        result: { error: 'tool "fail" failed: disk full' },
        toolArgs: { text: 'fixed' },
      },
      { isError: false, result: 'fixed', toolArgs: { text: 'fixed' } },
    ]);
  });

  it('never runs for a call that was blocked before it ran', async () => {
    let ran = 0;
    const guard = ext('guard', (h) => h.on('intercept_tool_call', () => block('no')));
    const count = ext('count', (h) =>
      h.on('transform_tool_result', () => {
        ran++;
      }),
    );
    await converse([guard, count], [toolCall('env', {}, 'c1')]);
    expect(ran).toBe(0);
  });

  it('gives handlers a frozen result: mutating it in place changes nothing the model gets', async () => {
    const sneaky = ext('sneaky', (h) =>
      h.on('transform_tool_result', (e) => {
        try {
          (e.result as { stdout: string }).stdout = 'changed behind the chain';
        } catch {}
      }),
    );
    const { toolMessages } = await converse([sneaky], [toolCall('env', {}, 'c1')]);
    expect(toolMessages[0]?.content).toContain('TOKEN=');
    expect(toolMessages[0]?.content).not.toContain('changed behind the chain');
  });

  it('judges the result as the model reads it: a value that reads differently a second time cannot slip past', async () => {
    let reads = 0;
    const shifty: Tools = {
      env: {
        execute: () => ({
          get stdout() {
            reads++;
            return reads === 1 ? 'nothing here' : `TOKEN=${SECRET}`;
          },
        }),
      },
    };
    const { toolMessages } = await converse([redactor], [toolCall('env', {}, 'c1')], shifty);
    expect(toolMessages[0]?.content).toBe('{"stdout":"nothing here"}');
    expect(reads).toBe(1);
  });

  it('turns a result that cannot be sent as JSON into the tool error, as before the chain', async () => {
    const cyclic: Tools = {
      env: {
        execute: () => {
          const loop: Record<string, unknown> = {};
          loop.self = loop;
          return loop;
        },
      },
    };
    const { result } = await converse([redactor], [toolCall('env', {}, 'c1')], cyclic);
    expect(result.toolCalls[0]?.status).toBe('error');
    expect(result.toolCalls[0]?.result).toMatch(
      /tool \\"env\\" failed: Converting circular structure/,
    );
  });

  it('still redacts a result that arrives as the turn is cancelled: it stays in the history', async () => {
    const controller = new AbortController();
    const tools: Tools = {
      env: {
        execute: () => {
          controller.abort();
          return `TOKEN=${SECRET}`;
        },
      },
    };
    const { runtime } = await runtimeOf([redactor]);
    const result = await runConversation({
      runtime,
      sessionId: 's',
      systemPrompt: 'You are an agent.',
      userMessage: 'go',
      model: scriptedModel([{ content: '', toolCalls: [toolCall('env', {}, 'c1')] }]),
      tools,
      signal: controller.signal,
    });
    expect(result.cancelled).toBe(true);
    expect(JSON.stringify(result.messages)).not.toContain(SECRET);
  });

  it('reports a decision that was not a plain pass as hook_decision', async () => {
    const decisions: ObserverPayload[] = [];
    const observer = ext('decisions', (h) => h.observe('hook_decision', (p) => decisions.push(p)));
    const { runtime } = await runtimeOf([redactor, observer]);
    await inTurn(runtime, (turn) =>
      turn.transformToolResult({
        toolName: 'env',
        toolArgs: {},
        result: `TOKEN=${SECRET}`,
        toolCallId: 'c9',
      }),
    );
    await runtime.close();
    expect(decisions).toHaveLength(1);
    expect(decisions[0]).toMatchObject({
      hook: 'transform_tool_result',
      tool_name: 'env',
      tool_call_id: 'c9',
      changed: true,
      decided_by: ['redact'],
    });
  });

  it('passes a result through untouched, as the same value, when no handler is for its tool', async () => {
    const scoped = ext('scoped', (h) =>
      h.on('transform_tool_result', () => block('never'), { tools: ['other'] }),
    );
    const { runtime } = await runtimeOf([scoped]);
    const result = { big: 'x'.repeat(10) };
    const outcome = await inTurn(runtime, (turn) =>
      turn.transformToolResult({ toolName: 'read', toolArgs: {}, result }),
    );
    expect(outcome.value).toBe(result);
    expect(outcome.trace).toEqual([]);
  });

  it('names the hook in a payload error', async () => {
    const { runtime } = await runtimeOf([redactor]);
    await expect(
      inTurn(runtime, (turn) => turn.transformToolResult({ toolName: 7, toolArgs: {} } as never)),
    ).rejects.toThrow(/transformToolResult\(call\): .*toolName/);
  });
});

describe('mapStrings', () => {
  it('maps every string value and key, in order, and returns the same value when nothing changed', () => {
    const value = { a: 'x-secret', b: ['secret', 1, null, { c: 'keep' }], secret: true };
    const mapped = mapStrings(value, (s) => s.replaceAll('secret', '***'));
    expect(mapped).toEqual({ a: 'x-***', b: ['***', 1, null, { c: 'keep' }], '***': true });
    expect(Object.keys(mapped as object)).toEqual(['a', 'b', '***']);
    expect(value.a).toBe('x-secret');
    expect(mapStrings(value, (s) => s)).toBe(value);
    expect(mapStrings('plain secret', (s) => s.replace('secret', '***'))).toBe('plain ***');
  });

  it('refuses two keys that map to one, rather than drop a value; a key mapped to __proto__ stays a key', () => {
    const env = { 'sk-live-1': 'prod', 'sk-live-2': 'staging' };
    expect(() => mapStrings(env, (s) => s.replace(/sk-live-\d/, '[key]'))).toThrow(
      /keys "sk-live-1" and "sk-live-2" both map to "\[key\]"/,
    );
    const mapped = mapStrings({ evil: { polluted: true } }, () => '__proto__') as object;
    expect(Object.getPrototypeOf(mapped)).toBe(Object.prototype);
    expect(Object.keys(mapped)).toEqual(['__proto__']);
  });

  it('refuses binary data: its bytes are not text it could map', () => {
    expect(() => mapStrings({ stdout: Buffer.from('sk-live') }, (s) => s)).toThrow(
      /binary data .*decode it/,
    );
    expect(() => mapStrings(new ArrayBuffer(4), (s) => s)).toThrow(/binary data/);
  });

  it('refuses cyclic data rather than looping', () => {
    const cyclic: Record<string, unknown> = { a: 'x' };
    cyclic.self = cyclic;
    expect(() => mapStrings(cyclic, (s) => s)).toThrow(/nested more than 100 levels/);
  });
});
