import { block, HookResult, injectSystem, injectUser, pass, rewrite } from 'hermes-extensions';
import { describe, expect, it } from 'vitest';

describe('HookResult helpers', () => {
  it('build plain { action, value?, metadata? } objects', () => {
    expect(pass()).toEqual({ action: 'pass' });
    expect(pass({ a: 1 })).toEqual({ action: 'pass', metadata: { a: 1 } });
    expect(rewrite('x')).toEqual({ action: 'rewrite', value: 'x' });
    expect(rewrite({ path: 'p' }, { why: 'w' })).toEqual({
      action: 'rewrite',
      value: { path: 'p' },
      metadata: { why: 'w' },
    });
    expect(block('no')).toEqual({ action: 'block', value: 'no' });
    expect(injectSystem('s')).toEqual({ action: 'inject_system', value: 's' });
    expect(injectUser('u', { k: true })).toEqual({
      action: 'inject_user',
      value: 'u',
      metadata: { k: true },
    });
  });

  it('are frozen, so a handler cannot change a result after returning it', () => {
    expect(Object.isFrozen(block('no'))).toBe(true);
    expect(Object.isFrozen(pass())).toBe(true);
  });

  it('are also reachable under one name, HookResult.*', () => {
    expect(HookResult.block('no')).toEqual(block('no'));
    expect(HookResult.rewrite('x')).toEqual(rewrite('x'));
    expect(HookResult.injectSystem('s')).toEqual(injectSystem('s'));
    expect(HookResult.injectUser('u')).toEqual(injectUser('u'));
    expect(HookResult.pass()).toBe(pass());
  });
});
