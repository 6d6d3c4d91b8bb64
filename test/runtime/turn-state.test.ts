import { getTurnState, TurnEndedError, TurnInProgressError } from 'hermes-extensions';
import { describe, expect, it } from 'vitest';
import { ext, runtimeOf } from '../support/helpers.js';

describe('per-turn state', () => {
  it('is one object shared by every handler of every chain in the turn', async () => {
    const states = new Set<unknown>();
    const { runtime } = await runtimeOf([
      ext('a', (h) => {
        h.on('transform_user_input', (e) => {
          states.add(e.state);
          e.state.planRequired = true;
        });
        h.on('before_llm_call', (e) => void states.add(e.state));
      }),
      ext('b', (h) =>
        h.on('intercept_tool_call', (e) => {
          states.add(e.state);
          e.state.sawPlanRequired = e.state.planRequired;
        }),
      ),
    ]);
    await runtime.runTurn({ sessionId: 's1' }, async (turn) => {
      await turn.transformUserInput('x');
      await turn.beforeLlmCall({ systemPrompt: '', messages: [] });
      await turn.interceptToolCall({ toolName: 'write', toolArgs: {} });
      states.add(turn.state);
      states.add(runtime.getTurnState('s1'));
      states.add(getTurnState('s1'));
      expect(turn.state).toEqual({ planRequired: true, sawPlanRequired: true });
    });
    expect(states.size).toBe(1);
  });

  it('is cleared when the turn ends, and the next turn starts empty', async () => {
    const seenAtStart: unknown[] = [];
    const { runtime } = await runtimeOf([
      ext('counter', (h) =>
        h.on('transform_user_input', (e) => {
          seenAtStart.push({ ...e.state });
          e.state.readRouting = true;
        }),
      ),
    ]);
    let kept: Record<string, unknown> | undefined;
    await runtime.runTurn({ sessionId: 's' }, async (turn) => {
      await turn.transformUserInput('one');
      kept = turn.state;
    });
    expect(runtime.getTurnState('s')).toBeUndefined();
    expect(getTurnState('s')).toBeUndefined();
    expect(kept).toEqual({});
    await runtime.runTurn({ sessionId: 's' }, (turn) => turn.transformUserInput('two'));
    expect(seenAtStart).toEqual([{}, {}]);
  });

  it('is cleared when the turn throws, and the error reaches the caller', async () => {
    const { runtime } = await runtimeOf([]);
    let kept: Record<string, unknown> = {};
    await expect(
      runtime.runTurn({ sessionId: 's' }, (turn) => {
        turn.state.secret = 'x';
        kept = turn.state;
        throw new Error('host failed');
      }),
    ).rejects.toThrow('host failed');
    expect(kept).toEqual({});
    expect(runtime.getTurnState('s')).toBeUndefined();
    // The session is free again.
    await expect(runtime.runTurn({ sessionId: 's' }, () => 'ok')).resolves.toBe('ok');
  });

  it('rejects a second concurrent turn of one session with TurnInProgressError', async () => {
    const { runtime } = await runtimeOf([]);
    let release: () => void = () => {};
    const first = runtime.runTurn(
      { sessionId: 'busy' },
      () => new Promise<void>((resolve) => (release = resolve)),
    );
    const second = runtime.runTurn({ sessionId: 'busy' }, () => 'never');
    await expect(second).rejects.toBeInstanceOf(TurnInProgressError);
    await expect(second).rejects.toThrow(/busy/);
    release();
    await first;
    await expect(runtime.runTurn({ sessionId: 'busy' }, () => 'next')).resolves.toBe('next');
  });

  it('keeps many concurrent sessions isolated', async () => {
    const { runtime } = await runtimeOf([
      ext('tracker', (h) => {
        h.on('transform_user_input', (e) => {
          e.state.owner = e.sessionId;
          e.state.calls = 0;
        });
        h.on('intercept_tool_call', async (e) => {
          await new Promise((r) => setTimeout(r, Math.random() * 5));
          e.state.calls = (e.state.calls as number) + 1;
          if (e.state.owner !== e.sessionId) throw new Error('state leaked between sessions');
        });
      }),
    ]);
    const sessions = Array.from({ length: 50 }, (_, i) => `session-${i}`);
    const results = await Promise.all(
      sessions.map((sessionId) =>
        runtime.runTurn({ sessionId }, async (turn) => {
          await turn.transformUserInput('go');
          const outcomes = [];
          for (let i = 0; i < 5; i++) {
            outcomes.push(await turn.interceptToolCall({ toolName: 't', toolArgs: { i } }));
            await new Promise((r) => setTimeout(r, Math.random() * 3));
          }
          expect(getTurnState(sessionId)).toBe(turn.state);
          return { state: { ...turn.state }, blocked: outcomes.some((o) => o.blocked) };
        }),
      ),
    );
    results.forEach((result, i) => {
      expect(result).toEqual({ state: { owner: sessions[i], calls: 5 }, blocked: false });
    });
    for (const sessionId of sessions) expect(getTurnState(sessionId)).toBeUndefined();
  });

  it('gives every turn its ids, and a turn object cannot be used after it ended', async () => {
    const { runtime } = await runtimeOf([
      ext('ids', (h) =>
        h.on('transform_user_input', (e) => {
          e.state.ids = [e.sessionId, e.turnId, e.platform];
        }),
      ),
    ]);
    const leaked = await runtime.runTurn(
      { sessionId: 's', platform: 'telegram', turnId: 'turn-7' },
      async (turn) => {
        await turn.transformUserInput('x');
        expect(turn.state.ids).toEqual(['s', 'turn-7', 'telegram']);
        expect([turn.sessionId, turn.turnId]).toEqual(['s', 'turn-7']);
        return turn;
      },
    );
    expect(() => leaked.transformUserInput('late')).toThrow(TurnEndedError);
    const ids = await Promise.all([
      runtime.runTurn({ sessionId: 'a' }, (t) => t.turnId),
      runtime.runTurn({ sessionId: 'b' }, (t) => t.turnId),
    ]);
    expect(new Set(ids).size).toBe(2);
  });

  it('taskId of a tool call defaults to the turn id', async () => {
    const seen: unknown[] = [];
    const { runtime } = await runtimeOf([
      ext('ids', (h) =>
        h.on('intercept_tool_call', (e) => void seen.push([e.taskId, e.toolCallId])),
      ),
    ]);
    await runtime.runTurn({ sessionId: 's', turnId: 'T' }, async (turn) => {
      await turn.interceptToolCall({ toolName: 'a', toolArgs: {} });
      await turn.interceptToolCall({
        toolName: 'a',
        toolArgs: {},
        taskId: 'task-9',
        toolCallId: 'c1',
      });
    });
    expect(seen).toEqual([
      ['T', undefined],
      ['task-9', 'c1'],
    ]);
  });
});
