import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { acquireOwnedLock } from '../../src/fs/owned-lock.js';
import { tree, tsExtension } from '../support/fixtures.js';
import { built } from '../support/run-bin.js';
import { hermes } from './hermes-cli.js';

/**
 * `enable` / `disable` read, edit and write the config with its lock held (src/fs/locked-file.ts),
 * as every other writer of a file under $HERMES_HOME does: while another process holds it (in the
 * middle of its own edit), the command does not write from a read that edit will make old — it
 * waits, and gives up naming the lock rather than write.
 */
describe.runIf(built)(
  'hermes extensions disable while another edit of the config is under way',
  () => {
    it('does not write while the lock is held, and writes once it is free', async () => {
      const original = 'extensions:\n  disabled: [alpha]\n';
      const home = tree({
        'config.yaml': original,
        'extensions/alpha.ts': tsExtension('alpha'),
        'extensions/guard.ts': tsExtension('guard'),
      });
      const file = join(home, 'config.yaml');
      const lock = await acquireOwnedLock(`${file}.lock`);
      try {
        const waited = await hermes(home, 'disable', 'guard', '--cwd', tree());
        expect(waited.code).not.toBe(0);
        expect(waited.stderr).toContain(`${file}.lock`);
        expect(readFileSync(file, 'utf8')).toBe(original);
      } finally {
        lock.release();
      }
      const done = await hermes(home, 'disable', 'guard', '--cwd', tree());
      expect(done.code, done.stderr).toBe(0);
      expect(readFileSync(file, 'utf8')).toBe('extensions:\n  disabled: [alpha, guard]\n');
    });
  },
);
