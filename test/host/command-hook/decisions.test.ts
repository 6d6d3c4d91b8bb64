import { describe, expect, it } from 'vitest';
import { claudeCode, codex } from '../../../src/host/command-hook/agents.js';
import { deny, NO_DECISION } from '../../../src/host/command-hook/answers.js';
import {
  ANSWER_BYTES_KEPT,
  answerDecided,
  callKeyOf,
  DECISIONS_KEPT,
  withDecision,
} from '../../../src/host/command-hook/decisions.js';
import type { StoredTurn } from '../../../src/host/command-hook/turn-store.js';

const event = (id: string, command = 'ls') => ({
  hook_event_name: 'PreToolUse',
  session_id: 's',
  cwd: '/project',
  tool_name: 'Bash',
  tool_input: { command },
  tool_use_id: id,
});

const keyOf = (e: Record<string, unknown>) => {
  const key = callKeyOf(claudeCode, e);
  if (key === undefined) throw new Error('no key');
  return key;
};

describe("a turn's record of decided tool calls", () => {
  it('keeps the newest calls only, so the turn file stays small', () => {
    let turn: StoredTurn = { turnId: 't', state: {} };
    for (let i = 0; i < DECISIONS_KEPT + 44; i++) {
      turn = { ...turn, decisions: withDecision(turn, keyOf(event(`c${i}`)), NO_DECISION) };
    }
    expect(turn.decisions).toHaveLength(DECISIONS_KEPT);
    expect(turn.decisions?.[0]?.id).toBe('c44');
    // The oldest is forgotten: decided again if it came back. The newest is answered.
    expect(answerDecided(claudeCode, turn, keyOf(event('c43')))).toBeUndefined();
    expect(answerDecided(claudeCode, turn, keyOf(event(`c${DECISIONS_KEPT + 43}`)))).toEqual(
      NO_DECISION,
    );
  });

  it('refuses a call whose answer was too large to keep, rather than deciding it again', () => {
    const turn: StoredTurn = { turnId: 't', state: {} };
    const key = keyOf(event('c1'));
    const large = deny('x'.repeat(ANSWER_BYTES_KEPT));
    const decisions = withDecision(turn, key, large);
    expect(decisions[0]).toEqual({ id: 'c1', call: key.call });
    const again = answerDecided(claudeCode, { ...turn, decisions }, key);
    expect(again?.refuses).toBe(true);
    expect(JSON.stringify(again?.output)).toMatch(/too large to keep/);
  });

  it('tells calls apart by agent, tool, input and folder, not by the order of input keys', () => {
    const base = event('c1');
    const call = keyOf(base).call;
    expect(keyOf({ ...base, tool_input: { command: 'ls' } }).call).toBe(call);
    expect(keyOf({ ...base, tool_input: { command: 'ls', timeout: 1 } }).call).not.toBe(call);
    expect(
      keyOf({ ...base, tool_input: { timeout: 1, command: 'ls' } }).call ===
        keyOf({ ...base, tool_input: { command: 'ls', timeout: 1 } }).call,
    ).toBe(true);
    expect(keyOf({ ...base, tool_name: 'Read' }).call).not.toBe(call);
    expect(keyOf({ ...base, cwd: '/elsewhere' }).call).not.toBe(call);
    expect(callKeyOf(codex, base)?.call).not.toBe(call);
    // No id, no key: such a call is decided each time.
    expect(callKeyOf(claudeCode, { ...base, tool_use_id: undefined })).toBeUndefined();
    expect(callKeyOf(claudeCode, { ...base, tool_use_id: '' })).toBeUndefined();
  });
});
