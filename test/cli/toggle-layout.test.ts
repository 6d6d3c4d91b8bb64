import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tree, tsExtension } from '../support/fixtures.js';
import { built } from '../support/run-bin.js';
import { hermes } from './hermes-cli.js';

const extensions = {
  'extensions/alpha.ts': tsExtension('alpha'),
  'extensions/beta.ts': tsExtension('beta'),
  'extensions/guard.ts': tsExtension('guard'),
};

describe.runIf(built)('hermes extensions enable / disable keep the YAML as it was written', () => {
  it('keeps a flow list flow, and every comment where it was', async () => {
    const original =
      'extensions:\n  disabled: [alpha, beta]   # off for now\nmodel: claude    # wide comment\n';
    const home = tree({ 'config.yaml': original, ...extensions });
    const file = join(home, 'config.yaml');
    expect((await hermes(home, 'disable', 'guard', '--cwd', tree())).code).toBe(0);
    expect(readFileSync(file, 'utf8')).toBe(
      'extensions:\n  disabled: [alpha, beta, guard]   # off for now\nmodel: claude    # wide comment\n',
    );
    expect((await hermes(home, 'enable', 'alpha', '--cwd', tree())).code).toBe(0);
    expect(readFileSync(file, 'utf8')).toBe(
      'extensions:\n  disabled: [beta, guard]   # off for now\nmodel: claude    # wide comment\n',
    );
  });

  it('adds and removes lines of a block list, leaving the others alone', async () => {
    const original =
      'extensions:\n  disabled:\n    - alpha    # broken for now\n    - beta\n  guard:\n    strict: true      # keep\n';
    const home = tree({ 'config.yaml': original, ...extensions });
    const file = join(home, 'config.yaml');
    await hermes(home, 'disable', 'guard', '--cwd', tree());
    expect(readFileSync(file, 'utf8')).toBe(
      'extensions:\n  disabled:\n    - alpha    # broken for now\n    - beta\n    - guard\n  guard:\n    strict: true      # keep\n',
    );
    await hermes(home, 'enable', 'beta', '--cwd', tree());
    expect(readFileSync(file, 'utf8')).toBe(
      'extensions:\n  disabled:\n    - alpha    # broken for now\n    - guard\n  guard:\n    strict: true      # keep\n',
    );
    await hermes(home, 'enable', 'alpha', '--cwd', tree());
    await hermes(home, 'enable', 'guard', '--cwd', tree());
    expect(readFileSync(file, 'utf8')).toBe(
      'extensions:\n  disabled: []\n  guard:\n    strict: true      # keep\n',
    );
  });

  it('adds the list at the end of the extensions section without touching the rest', async () => {
    const original =
      '# mine\nextensions:   # the section\n  guard:\n    strict: true      # keep\nmodel: claude    # wide\n';
    const home = tree({ 'config.yaml': original, ...extensions });
    await hermes(home, 'disable', 'guard', '--cwd', tree());
    expect(readFileSync(join(home, 'config.yaml'), 'utf8')).toBe(
      '# mine\nextensions:   # the section\n  guard:\n    strict: true      # keep\n  disabled:\n    - guard\nmodel: claude    # wide\n',
    );
  });

  it('adds the section at the end of a file without one', async () => {
    const original = 'model: claude    # wide\n';
    const home = tree({ 'config.yaml': original, ...extensions });
    await hermes(home, 'disable', 'guard', '--cwd', tree());
    expect(readFileSync(join(home, 'config.yaml'), 'utf8')).toBe(
      'model: claude    # wide\nextensions:\n  disabled:\n    - guard\n',
    );
  });
});
