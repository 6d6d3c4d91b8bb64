import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tree, tsExtension } from '../support/fixtures.js';
import { built } from '../support/run-bin.js';
import { hermes } from './hermes-cli.js';

describe.runIf(built)(
  'hermes extensions list and an extensions.paths entry that does not exist',
  () => {
    it('says so under the table, with the file to correct and the fix, as doctor does', async () => {
      const home = tree({
        'config.yaml': 'extensions:\n  paths:\n    - ./guards/missing-guard\n',
        'extensions/guard.ts': tsExtension('guard'),
      });
      const run = await hermes(home, 'extensions', 'list', '--cwd', tree());
      expect(run.code).toBe(0);
      expect(run.stdout).toMatch(/^guard\s+enabled/m);
      expect(run.stdout).toMatch(
        /^error: extensions\.paths entry "\.\/guards\/missing-guard" .* does not exist/m,
      );
      expect(run.stdout).toContain(join(home, 'config.yaml'));
      expect(run.stdout).toContain(
        'fix: correct the entry in extensions.paths, or install the package',
      );
    });

    it('says so when it is the only extension configured, instead of only "No extensions found"', async () => {
      const home = tree({ 'config.yaml': 'extensions:\n  paths:\n    - /nowhere/guard\n' });
      const run = await hermes(home, 'extensions', 'list', '--cwd', tree());
      expect(run.stdout).toMatch(
        /^error: extensions\.paths entry "\/nowhere\/guard" .* does not exist/m,
      );
    });
  },
);
