import type { ChatMessage, Turn } from 'hermes-extensions';
import { rewrite } from 'hermes-extensions';
import { describe, expect, it } from 'vitest';
import { ext, inTurn, runtimeOf } from '../support/helpers.js';

describe('read-only payloads', () => {
  it('a handler cannot change the tool args the host or later handlers see', async () => {
    const seenByLater: unknown[] = [];
    const { runtime } = await runtimeOf([
      ext('vandal', (h) =>
        h.on(
          'intercept_tool_call',
          (e) => {
            (e.toolArgs as Record<string, unknown>).path = '/etc/passwd';
          },
          { priority: 1, onError: 'pass' },
        ),
      ),
      ext('nested-vandal', (h) =>
        h.on(
          'intercept_tool_call',
          (e) => {
            (e.toolArgs.options as { force: boolean }).force = true;
          },
          { priority: 2, onError: 'pass' },
        ),
      ),
      ext('witness', (h) =>
        h.on('intercept_tool_call', (e) => void seenByLater.push(structuredClone(e.toolArgs)), {
          priority: 3,
        }),
      ),
    ]);
    const args = { path: 'src/a.ts', options: { force: false } };
    const outcome = await inTurn(runtime, (t) =>
      t.interceptToolCall({ toolName: 'write', toolArgs: args }),
    );
    expect(args).toEqual({ path: 'src/a.ts', options: { force: false } });
    expect(seenByLater).toEqual([{ path: 'src/a.ts', options: { force: false } }]);
    expect(outcome.trace.map((e) => e.action)).toEqual(['error', 'error', 'pass']);
    expect(outcome.trace[0]?.error).toMatch(/read.only|Cannot assign/);
  });

  it('mutating a payload on a fail-closed hook blocks the call', async () => {
    const { runtime } = await runtimeOf([
      ext('vandal', (h) =>
        h.on('intercept_tool_call', (e) => {
          (e.toolArgs as Record<string, unknown>).path = 'x';
        }),
      ),
    ]);
    const outcome = await inTurn(runtime, (t) =>
      t.interceptToolCall({ toolName: 'write', toolArgs: { path: 'a' } }),
    );
    expect(outcome.blocked).toBe(true);
  });

  it('the event itself, messages and the metadata are frozen too', async () => {
    const attempts: string[] = [];
    const attempt = (label: string, fn: () => void) => {
      try {
        fn();
      } catch {
        attempts.push(label);
      }
    };
    const { runtime } = await runtimeOf([
      ext('vandal', (h) =>
        h.on('before_llm_call', (e) => {
          attempt('systemPrompt', () => {
            (e as { systemPrompt: string }).systemPrompt = 'evil';
          });
          attempt('push', () => (e.messages as ChatMessage[]).push({ role: 'user', content: 'x' }));
          attempt('content', () => {
            (e.messages[0] as { content: string }).content = 'evil';
          });
          attempt('metadata', () => {
            (e.metadata as Record<string, unknown>).x = 1;
          });
        }),
      ),
    ]);
    const messages: ChatMessage[] = [{ role: 'user', content: 'hi' }];
    const outcome = await inTurn(runtime, (t) =>
      t.beforeLlmCall({ systemPrompt: 'sys', messages }),
    );
    expect(attempts).toEqual(['systemPrompt', 'push', 'content', 'metadata']);
    expect(messages).toEqual([{ role: 'user', content: 'hi' }]);
    expect(outcome.value.systemPrompt).toBe('sys');
  });

  it('a rewrite value is copied, so the handler keeping it cannot change it afterwards', async () => {
    const kept: Record<string, unknown> = { path: 'plans/x.md' };
    const { runtime } = await runtimeOf([
      ext('rewriter', (h) => h.on('intercept_tool_call', () => rewrite(kept))),
    ]);
    const outcome = await inTurn(runtime, (t) =>
      t.interceptToolCall({ toolName: 'write', toolArgs: { path: 'a' } }),
    );
    kept.path = '/etc/passwd';
    expect(outcome.value).toEqual({ path: 'plans/x.md' });
  });

  it('the turn state is the one writable thing in an event', async () => {
    const { runtime } = await runtimeOf([
      ext('stateful', (h) =>
        h.on('intercept_tool_call', (e) => {
          e.state.calls = ((e.state.calls as number) ?? 0) + 1;
        }),
      ),
    ]);
    await runtime.runTurn({ sessionId: 's' }, async (t) => {
      await t.interceptToolCall({ toolName: 'a', toolArgs: {} });
      await t.interceptToolCall({ toolName: 'b', toolArgs: {} });
      expect(t.state.calls).toBe(2);
    });
  });
});

describe('rewrites that cannot be copied', () => {
  it('a cyclic rewrite value is a handler error, never a crash of the host', async () => {
    const cyclic: Record<string, unknown> = { path: 'a' };
    let node = cyclic;
    for (let i = 0; i < 200; i++) node = node.next = {};
    node.loop = cyclic;
    const { runtime } = await runtimeOf([
      ext('cyclic', (h) => h.on('intercept_tool_call', () => rewrite(cyclic))),
    ]);
    const outcome = await inTurn(runtime, (t) =>
      t.interceptToolCall({ toolName: 'write', toolArgs: {} }),
    );
    expect(outcome).toMatchObject({ blocked: true, blockedBy: 'cyclic', changed: false });
    expect(outcome.trace[0]?.error).toMatch(/value\.next\.next.*nested more than 100 levels deep/);
  });
});

describe('payloads that do not fit their hook', () => {
  it("throws a TypeError naming the field, worded from the hook's declaration", async () => {
    const { runtime } = await runtimeOf([
      ext('guard', (h) => h.on('intercept_tool_call', () => undefined)),
    ]);
    const misuse = (call: (turn: Turn) => unknown) =>
      inTurn(runtime, (turn) => {
        try {
          call(turn);
        } catch (error) {
          return error as Error;
        }
        throw new Error('no error thrown');
      });
    const toolArgs = await misuse((t) => t.interceptToolCall({ toolName: 'write' } as never));
    expect(toolArgs).toBeInstanceOf(TypeError);
    expect(toolArgs.message).toBe('interceptToolCall(call): toolArgs must be an object');
    expect((await misuse((t) => t.interceptToolCall(undefined as never))).message).toBe(
      'interceptToolCall(call): call must be an object',
    );
    expect(
      (await misuse((t) => t.beforeLlmCall({ systemPrompt: 'S', messages: 'hi' } as never)))
        .message,
    ).toBe('beforeLlmCall(request): messages must be an array');
    expect((await misuse((t) => t.transformUserInput(5 as never))).message).toBe(
      'transformUserInput(userMessage): userMessage must be a string',
    );
  });
});
