import { block, type ChainOutcome, pass } from 'hermes-extensions';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { ext, inTurn, runtimeOf, write } from '../support/helpers.js';

describe('ChainOutcome', () => {
  it('narrows on blocked: a block always says why and who, a pass has neither', async () => {
    const { runtime } = await runtimeOf([
      ext('guard', (h) =>
        h.on('intercept_tool_call', (e) => (e.toolArgs.path === 'secret' ? block('no') : pass())),
      ),
    ]);
    const [refused, allowed] = await inTurn(runtime, async (t) => [
      await t.interceptToolCall(write('secret')),
      await t.interceptToolCall(write('open')),
    ]);
    const described = (outcome: ChainOutcome<unknown>) => {
      if (outcome.blocked) {
        expectTypeOf(outcome.message).toEqualTypeOf<string>();
        expectTypeOf(outcome.blockedBy).toEqualTypeOf<string>();
        return `${outcome.blockedBy}: ${outcome.message}`;
      }
      // @ts-expect-error an outcome that did not block has no message
      const message: unknown = outcome.message;
      // @ts-expect-error nor anyone who blocked
      const blockedBy: unknown = outcome.blockedBy;
      return [message, blockedBy];
    };
    expect(described(refused)).toBe('guard: no');
    expect(described(allowed)).toEqual([undefined, undefined]);
    expect(allowed).not.toHaveProperty('message');
    expect(allowed).not.toHaveProperty('blockedBy');
  });
});
