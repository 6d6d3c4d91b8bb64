import { block, rewrite } from 'hermes-extensions';
import { describe, expect, it } from 'vitest';
import { mergeConfigs } from '../../src/config/merge.js';
import { blockedOutcome, ext, inTurn, runtimeOf } from '../support/helpers.js';

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
/** Busy-waits: a synchronous handler that takes `ms`. */
const spin = (ms: number) => {
  const end = performance.now() + ms;
  while (performance.now() < end) {}
};

/** Three extensions each with one async handler of `ms` on `hook`, well under its own timeout. */
function slowChain(hook: 'intercept_tool_call' | 'before_llm_call', ms: number) {
  return ['slow-a', 'slow-b', 'slow-c'].map((name, i) =>
    ext(name, (h) =>
      h.on(
        hook,
        async () => {
          await sleep(ms);
          return undefined;
        },
        { priority: 10 + i, timeoutMs: 5000 },
      ),
    ),
  );
}

const request = { systemPrompt: 'be brief', messages: [{ role: 'user' as const, content: 'hi' }] };

describe('chainTimeoutMs: a deadline for the whole chain', () => {
  it('blocks a tool call whose three slow handlers together pass the deadline, naming them', async () => {
    const { runtime, logger } = await runtimeOf(slowChain('intercept_tool_call', 300), {
      chainTimeoutMs: { intercept_tool_call: 450 },
    });
    const started = performance.now();
    const outcome = await inTurn(runtime, (t) =>
      t.interceptToolCall({ toolName: 'bash', toolArgs: { command: 'ls' } }),
    );
    const took = performance.now() - started;
    const blocked = blockedOutcome(outcome);
    expect(blocked.blockedBy).toBe('hermes');
    expect(blocked.message).toMatch(
      /intercept_tool_call chain ran past its chainTimeoutMs of 450 ms/,
    );
    expect(blocked.message).toMatch(/ran: slow-a; cut off: slow-b; did not run: slow-c/);
    expect(blocked.message).toMatch(/extensions\.chain_timeout_ms\.intercept_tool_call/);
    // It stopped waiting at the deadline, not at slow-b's own timeout or the end of the chain.
    expect(took).toBeLessThan(850);
    expect(outcome.trace.map((e) => [e.extension, e.action])).toEqual([
      ['slow-a', 'pass'],
      ['slow-b', 'block'],
    ]);
    expect(logger.lines.map((l) => l.message).join('\n')).toMatch(/ran past its chainTimeoutMs/);
  });

  it('passes a model request past the deadline with what finished (fail open), in the trace', async () => {
    const { runtime } = await runtimeOf(
      [
        ...slowChain('before_llm_call', 300),
        ext('shaper', (h) =>
          h.on('before_llm_call', () => rewrite({ systemPrompt: 'shaped' }), {
            priority: 1,
          }),
        ),
      ],
      { chainTimeoutMs: { before_llm_call: 450 } },
    );
    const outcome = await inTurn(runtime, (t) => t.beforeLlmCall(request));
    expect(outcome.blocked).toBe(false);
    expect(outcome.value.systemPrompt).toBe('shaped');
    const last = outcome.trace.at(-1);
    expect(last).toMatchObject({ extension: 'slow-b', action: 'error' });
    expect(last?.error).toMatch(
      /before_llm_call chain ran past its chainTimeoutMs of 450 ms \(ran: shaper, slow-a; cut off: slow-b; did not run: slow-c\): went on with what finished/,
    );
  });

  it('ends the chain after a synchronous handler that finishes past the deadline, discarding its result', async () => {
    const { runtime } = await runtimeOf(
      [
        ext('sync-slow', (h) =>
          h.on(
            'intercept_tool_call',
            () => {
              spin(80);
              return undefined;
            },
            { priority: 1 },
          ),
        ),
        ext('never', (h) => h.on('intercept_tool_call', () => block('should not run'))),
      ],
      { chainTimeoutMs: { intercept_tool_call: 40 } },
    );
    const outcome = await inTurn(runtime, (t) =>
      t.interceptToolCall({ toolName: 'bash', toolArgs: {} }),
    );
    expect(blockedOutcome(outcome).message).toMatch(
      /ran: none; cut off: sync-slow; did not run: never/,
    );
    expect(outcome.trace).toHaveLength(1);
  });

  it('stops between handlers: a fail-open handler that threw late does not let the next one start', async () => {
    const { runtime } = await runtimeOf(
      [
        ext('thrower', (h) =>
          h.on(
            'before_llm_call',
            () => {
              spin(60);
              throw new Error('late and broken');
            },
            { priority: 1 },
          ),
        ),
        ext('next', (h) => h.on('before_llm_call', () => rewrite({ systemPrompt: 'no' }))),
      ],
      { chainTimeoutMs: { before_llm_call: 30 } },
    );
    const outcome = await inTurn(runtime, (t) => t.beforeLlmCall(request));
    expect(outcome.blocked).toBe(false);
    expect(outcome.value.systemPrompt).toBe('be brief');
    expect(outcome.trace.map((e) => [e.extension, e.action])).toEqual([
      ['thrower', 'error'],
      ['hermes', 'error'],
    ]);
    expect(outcome.trace[1]?.error).toMatch(/ran: thrower; did not run: next/);
  });

  it('is reported as a hook_decision with the deadline in its trace', async () => {
    const decisions: Record<string, unknown>[] = [];
    const { runtime } = await runtimeOf(
      [
        ...slowChain('intercept_tool_call', 100),
        ext('watcher', (h) =>
          h.observe('hook_decision', (e) => {
            decisions.push(e as Record<string, unknown>);
          }),
        ),
      ],
      { chainTimeoutMs: { intercept_tool_call: 150 } },
    );
    await inTurn(runtime, (t) => t.interceptToolCall({ toolName: 'bash', toolArgs: {} }));
    await sleep(20);
    expect(decisions).toHaveLength(1);
    expect(decisions[0]).toMatchObject({
      hook: 'intercept_tool_call',
      blocked: true,
      blocked_by: 'hermes',
    });
    expect(String(decisions[0]?.message)).toMatch(/chainTimeoutMs of 150 ms/);
  });

  it('changes nothing without a deadline: the same slow chain runs to the end', async () => {
    const { runtime } = await runtimeOf(slowChain('intercept_tool_call', 60));
    const outcome = await inTurn(runtime, (t) =>
      t.interceptToolCall({ toolName: 'bash', toolArgs: {} }),
    );
    expect(outcome.blocked).toBe(false);
    expect(outcome.trace.map((e) => e.action)).toEqual(['pass', 'pass', 'pass']);
  });

  it('a handler that settles within both its own timeout and the deadline is not cut off', async () => {
    const { runtime } = await runtimeOf(slowChain('intercept_tool_call', 20), {
      chainTimeoutMs: { intercept_tool_call: 1000 },
    });
    const outcome = await inTurn(runtime, (t) =>
      t.interceptToolCall({ toolName: 'bash', toolArgs: {} }),
    );
    expect(outcome.blocked).toBe(false);
    expect(outcome.trace).toHaveLength(3);
  });

  it("keeps a handler's own shorter timeout", async () => {
    const { runtime } = await runtimeOf(
      [
        ext('hangs', (h) =>
          h.on('intercept_tool_call', () => new Promise(() => {}), { timeoutMs: 30 }),
        ),
      ],
      { chainTimeoutMs: { intercept_tool_call: 5000 } },
    );
    const outcome = await inTurn(runtime, (t) =>
      t.interceptToolCall({ toolName: 'bash', toolArgs: {} }),
    );
    expect(blockedOutcome(outcome).message).toMatch(/timed out after 30 ms/);
  });

  it("lowers the limit to what the host's deadline leaves (TurnOptions.deadline)", async () => {
    const { runtime } = await runtimeOf(slowChain('intercept_tool_call', 150), {
      chainTimeoutMs: { intercept_tool_call: 10_000 },
    });
    const outcome = await runtime.runTurn({ sessionId: 'host', deadline: Date.now() + 200 }, (t) =>
      t.interceptToolCall({ toolName: 'bash', toolArgs: {} }),
    );
    expect(blockedOutcome(outcome).message).toMatch(
      /ran past the (1\d\d|200) ms its host's deadline left it \(ran: .*did not run: .*slow-c\)/,
    );
  });

  it("refuses a model request the host's deadline cut off, where its own chainTimeoutMs lets it through", async () => {
    // The host's deadline is not the user's choice: a command hook's comes from the environment
    // the agent gives it (HERMES_HOOK_DEADLINE_MS), which a project can set, so a short one would
    // let every prompt past a slow validator unchecked.
    const { runtime } = await runtimeOf(slowChain('before_llm_call', 150), {
      chainTimeoutMs: { before_llm_call: 10_000 },
    });
    const outcome = await runtime.runTurn({ sessionId: 'host', deadline: Date.now() + 200 }, (t) =>
      t.beforeLlmCall(request),
    );
    expect(blockedOutcome(outcome).message).toMatch(
      /before_llm_call chain ran past the (1\d\d|200) ms its host's deadline left it \(ran: .*\): blocked \(fails closed, the host's time\)/,
    );
  });

  it('runs no handler when the host left no time', async () => {
    const { runtime } = await runtimeOf(slowChain('intercept_tool_call', 10));
    const outcome = await runtime.runTurn({ sessionId: 'late', deadline: Date.now() - 5 }, (t) =>
      t.interceptToolCall({ toolName: 'bash', toolArgs: {} }),
    );
    expect(blockedOutcome(outcome).message).toMatch(
      /ran: none; did not run: slow-a, slow-b, slow-c/,
    );
  });

  it('refuses a limit that is not a positive number of milliseconds, and an unknown hook', async () => {
    await expect(runtimeOf([], { chainTimeoutMs: { intercept_tool_call: 0 } })).rejects.toThrow(
      /chainTimeoutMs.*intercept_tool_call.*more than 0 ms/s,
    );
    await expect(
      runtimeOf([], { chainTimeoutMs: { intercept_tool_cal: 100 } as never }),
    ).rejects.toThrow(/intercept_tool_cal/);
  });

  it('reads extensions.chain_timeout_ms from the config', async () => {
    const { runtime } = await runtimeOf(slowChain('intercept_tool_call', 150), {
      config: { extensions: { chain_timeout_ms: { intercept_tool_call: 250 } } },
    });
    const outcome = await inTurn(runtime, (t) =>
      t.interceptToolCall({ toolName: 'bash', toolArgs: {} }),
    );
    expect(blockedOutcome(outcome).message).toMatch(/chainTimeoutMs of 250 ms/);
  });

  it("merges a project's chain_timeout_ms over the global one hook by hook", () => {
    const { section } = mergeConfigs([
      {
        config: {
          extensions: { chain_timeout_ms: { intercept_tool_call: 3000, before_llm_call: 1000 } },
        },
        file: '/home/config.yaml',
      },
      {
        config: { extensions: { chain_timeout_ms: { intercept_tool_call: 2000 } } },
        file: '/project/.hermes/config.yaml',
      },
    ]);
    expect(section.chain_timeout_ms).toEqual({ intercept_tool_call: 2000, before_llm_call: 1000 });
  });
});
