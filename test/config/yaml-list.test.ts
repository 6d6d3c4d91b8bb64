import { describe, expect, it } from 'vitest';
import { removeYamlKey } from '../../src/config/yaml-list.js';

describe('removeYamlKey: only the lines of the key go', () => {
  it.each([
    [
      'a section appended at the end',
      '# mine\nmodel: x\nplugins:\n  enabled: []\n',
      ['plugins'],
      '# mine\nmodel: x\n',
    ],
    ['a section alone', 'plugins:\n  enabled: []\n', ['plugins'], ''],
    [
      'a key inside a section, its neighbours kept',
      'plugins:\n  disabled: [a] # no\n  enabled: []\nmodel: x # mine\n',
      ['plugins', 'enabled'],
      'plugins:\n  disabled: [a] # no\nmodel: x # mine\n',
    ],
    ['a key that is not there', 'model: x\n', ['plugins'], 'model: x\n'],
  ])('%s', (_, text, path, expected) => {
    expect(removeYamlKey(text, path)).toBe(expected);
  });

  it('a layout it cannot cut is written by the library, without the key', () => {
    const out = removeYamlKey('{ model: x, plugins: { enabled: [] } }\n', ['plugins']);
    expect(out).not.toContain('plugins');
    expect(out).toContain('model: x');
  });
});
