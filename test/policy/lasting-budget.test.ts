import { readdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ChainOutcome } from 'hermes-extensions';
import { modelCallBudget, refusalLimit, toolCallBudget } from 'hermes-extensions/policy';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { tree } from '../support/fixtures.js';
import { blockedOutcome, ext, runtimeOf } from '../support/helpers.js';

/**
 * Budgets beyond a turn (docs/policy.md, Budgets beyond a turn): `scope: 'session'` counts every
 * turn of a session, `scope: 'window'` every call of the user in the last `window`, both kept in
 * `$HERMES_HOME/limits/` under the file lock the turn store takes, so two runtimes (two hook
 * processes, a hook process and the daemon) share one count.
 */
let home: string;
const before = process.env.HERMES_HOME;
beforeEach(() => {
  home = tree();
  process.env.HERMES_HOME = home;
});
afterEach(() => {
  vi.useRealTimers();
  if (before === undefined) delete process.env.HERMES_HOME;
  else process.env.HERMES_HOME = before;
});

const bash = { toolName: 'bash', toolArgs: { command: 'ls' } };
const blocked = (outcomes: ChainOutcome<unknown>[]) => outcomes.map((o) => o.blocked);

async function budgeted(options: Parameters<typeof toolCallBudget>[1]) {
  const { runtime } = await runtimeOf([
    ext('limits', (hermes) => {
      hermes.on('intercept_tool_call', toolCallBudget(hermes, options));
    }),
  ]);
  return runtime;
}

describe('toolCallBudget({ scope: "session" })', () => {
  it('counts across turns and across runtimes of the session, and apart for another session', async () => {
    const one = await budgeted({ max: 2, scope: 'session' });
    const two = await budgeted({ max: 2, scope: 'session' });
    const outcomes = [
      await one.runTurn({ sessionId: 's1' }, (turn) => turn.interceptToolCall(bash)),
      await two.runTurn({ sessionId: 's1' }, (turn) => turn.interceptToolCall(bash)),
      await one.runTurn({ sessionId: 's1' }, (turn) => turn.interceptToolCall(bash)),
      await two.runTurn({ sessionId: 's2' }, (turn) => turn.interceptToolCall(bash)),
    ];
    expect(blocked(outcomes)).toEqual([false, false, true, false]);
    expect(blockedOutcome(outcomes[2] as ChainOutcome<unknown>).message).toMatch(
      /at most 2 calls of any tool per session/,
    );
    await one.close();
    await two.close();
  });

  it('keeps its counts on protected ground: $HERMES_HOME/limits', async () => {
    const runtime = await budgeted({ max: 1, scope: 'session' });
    await runtime.runTurn({ sessionId: 's1' }, (turn) => turn.interceptToolCall(bash));
    expect(readdirSync(join(home, 'limits')).filter((f) => f.endsWith('.json'))).toHaveLength(1);
    await runtime.close();
  });

  it('sweeps the counts nobody touched for 30 days, and keeps the others', async () => {
    const runtime = await budgeted({ max: 5, scope: 'session' });
    await runtime.runTurn({ sessionId: 'old' }, (turn) => turn.interceptToolCall(bash));
    const folder = join(home, 'limits');
    const [old] = readdirSync(folder).filter((f) => f.endsWith('.json'));
    const month = new Date(Date.now() - 31 * 86_400_000);
    utimesSync(join(folder, old as string), month, month);
    utimesSync(join(folder, '.swept'), month, month);
    await runtime.runTurn({ sessionId: 'new' }, (turn) => turn.interceptToolCall(bash));
    const left = readdirSync(folder).filter((f) => f.endsWith('.json'));
    expect(left).toHaveLength(1);
    expect(left).not.toContain(old);
    await runtime.close();
  });

  it('refuses when its record is not a count it wrote, rather than start again', async () => {
    const runtime = await budgeted({ max: 5, scope: 'session' });
    await runtime.runTurn({ sessionId: 's1' }, (turn) => turn.interceptToolCall(bash));
    const [file] = readdirSync(join(home, 'limits')).filter((f) => f.endsWith('.json'));
    writeFileSync(join(home, 'limits', file as string), '{"count":"lots"}');
    const outcome = await runtime.runTurn({ sessionId: 's1' }, (turn) =>
      turn.interceptToolCall(bash),
    );
    expect(blockedOutcome(outcome).message).toMatch(/cannot tell how many/);
    await runtime.close();
  });
});

describe('toolCallBudget({ scope: "window" })', () => {
  it('counts the calls of every session in the window, and frees them as it moves on', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2026-01-01T10:00:00Z'));
    const runtime = await budgeted({ max: 2, scope: 'window', window: '10m' });
    const call = (sessionId: string) =>
      runtime.runTurn({ sessionId }, (turn) => turn.interceptToolCall(bash));
    const first = [await call('a'), await call('b'), await call('c')];
    expect(blocked(first)).toEqual([false, false, true]);
    expect(blockedOutcome(first[2] as ChainOutcome<unknown>).message).toMatch(
      /at most 2 calls of any tool in any 10m/,
    );
    vi.setSystemTime(new Date('2026-01-01T10:09:59Z'));
    expect((await call('d')).blocked).toBe(true);
    vi.setSystemTime(new Date('2026-01-01T10:10:01Z'));
    expect(blocked([await call('e'), await call('f')])).toEqual([false, false]);
    expect((await call('g')).blocked).toBe(true);
    await runtime.close();
  });

  it('names what is wrong with a scope or a window', () => {
    const owner = { name: 'limits' };
    expect(() => toolCallBudget(owner, { max: 1, scope: 'window' })).toThrow(
      /window must be a duration such as '10m'/,
    );
    expect(() => toolCallBudget(owner, { max: 1, scope: 'window', window: 'ten' })).toThrow(
      /window must be a duration/,
    );
    expect(() => toolCallBudget(owner, { max: 1, scope: 'window', window: '5w' })).toThrow(
      /at most 29d/,
    );
    expect(() => toolCallBudget(owner, { max: 1, window: '10m' })).toThrow(
      /window is for scope: 'window'/,
    );
    expect(() =>
      toolCallBudget(owner, { max: 1, scope: 'forever' as unknown as 'session' }),
    ).toThrow(/scope must be 'turn', 'session' or 'window'/);
  });
});

describe('modelCallBudget({ scope: "session" })', () => {
  it('counts the requests of every turn of the session', async () => {
    const { runtime } = await runtimeOf([
      ext('limits', (hermes) => {
        hermes.on('before_llm_call', modelCallBudget(hermes, { max: 1, scope: 'session' }));
      }),
    ]);
    const request = (turn: Parameters<Parameters<typeof runtime.runTurn>[1]>[0]) =>
      turn.beforeLlmCall({ systemPrompt: '', messages: [] });
    const first = await runtime.runTurn({ sessionId: 'm1' }, request);
    const second = await runtime.runTurn({ sessionId: 'm1' }, request);
    expect(first.blocked).toBe(false);
    expect(blockedOutcome(second).message).toMatch(/at most 1 model requests per session/);
    await runtime.close();
  });
});

describe('refusalLimit', () => {
  it('after max refusals in a row refuses every call of the session; a call let through resets the row', async () => {
    const { runtime } = await runtimeOf([
      ext('limits', (hermes) => {
        refusalLimit(hermes, { max: 2, scope: 'session' });
      }),
      ext('no-rm', (hermes) => {
        hermes.on('intercept_tool_call', (event) =>
          String(event.toolArgs.command).startsWith('rm')
            ? { action: 'block', value: 'no rm' }
            : undefined,
        );
      }),
    ]);
    const rm = { toolName: 'bash', toolArgs: { command: 'rm -rf x' } };
    const ls = { toolName: 'bash', toolArgs: { command: 'ls' } };
    const call = (args: typeof rm) =>
      runtime.runTurn({ sessionId: 'r1' }, (turn) => turn.interceptToolCall(args));
    const outcomes = [await call(rm), await call(ls), await call(rm), await call(rm)];
    expect(outcomes.map((o) => (o.blocked ? o.blockedBy : 'ran'))).toEqual([
      'no-rm',
      'ran',
      'no-rm',
      'no-rm',
    ]);
    const stopped = blockedOutcome(await call(ls));
    expect(stopped.blockedBy).toBe('limits');
    expect(stopped.message).toMatch(/2 tool calls in a row were refused/);
    // Another session has its own row.
    const other = await runtime.runTurn({ sessionId: 'r2' }, (turn) => turn.interceptToolCall(ls));
    expect(other.blocked).toBe(false);
    await runtime.close();
  });
});
