import { sandboxRefusedWrite, withAdvice } from 'hermes-extensions/policy';
import { describe, expect, it } from 'vitest';

/**
 * What tells a write the sandbox refused from other failures, and where the advice goes
 * (docs/policy.md, When the sandbox refuses a write). The texts are what the real sandbox's
 * programs print (extensions/workflow-guard/sandbox-advice.test.ts runs them).
 */
describe('sandboxRefusedWrite', () => {
  it.each([
    "touch: cannot touch 'src/y': Read-only file system\n",
    '/usr/bin/bash: line 2: src/y: Read-only file system\n',
    "Error: EROFS: read-only file system, open 'src/y'\n",
    "OSError: [Errno 30] Read-only file system: 'src/y'\n",
  ])('a refused write: %s', (text) => {
    expect(sandboxRefusedWrite(text)).toBe(true);
    expect(sandboxRefusedWrite({ stdout: '', stderr: text, interrupted: false })).toBe(true);
  });

  it.each([
    "ls: cannot access 'nothere': No such file or directory\n",
    'cat: .env: Permission denied\n',
    'npm ERR! code E404\n',
    '',
  ])('another failure: %s', (text) => {
    expect(sandboxRefusedWrite(text)).toBe(false);
    expect(sandboxRefusedWrite({ stdout: text, stderr: '' })).toBe(false);
  });
});

describe('withAdvice', () => {
  it('ends text with the line, on a line of its own', () => {
    expect(withAdvice('boom', 'advice')).toBe('boom\nadvice\n');
    expect(withAdvice('boom\n', 'advice')).toBe('boom\nadvice\n');
    expect(withAdvice('', 'advice')).toBe('advice\n');
  });

  it("appends to an object's first output field, every other field and key kept", () => {
    const result = { stdout: 'a\n', stderr: 'b\n', interrupted: false };
    expect(withAdvice(result, 'advice')).toEqual({
      stdout: 'a\nadvice\n',
      stderr: 'b\n',
      interrupted: false,
    });
    expect(withAdvice({ error: 'failed' }, 'advice')).toEqual({ error: 'failed\nadvice\n' });
  });

  it('gives nothing where there is no text to append to', () => {
    expect(withAdvice([{ type: 'text', text: 'x' }], 'advice')).toBeUndefined();
    expect(withAdvice({ code: 1 }, 'advice')).toBeUndefined();
    expect(withAdvice(null, 'advice')).toBeUndefined();
  });
});
