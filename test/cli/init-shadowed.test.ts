import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tree, tsExtension } from '../support/fixtures.js';
import { built } from '../support/run-bin.js';
import { hermes } from './hermes-cli.js';

describe.runIf(built)('hermes extensions init beside a single-file extension', () => {
  it.each(['ts', 'mts', 'js', 'mjs'])(
    'refuses NAME when NAME.%s is there, saying why',
    async (ext) => {
      const home = tree({ [`extensions/my-guard.${ext}`]: tsExtension('my-guard') });
      const run = await hermes(home, 'extensions', 'init', 'my-guard');
      expect(run.code).toBe(2);
      expect(run.stderr).toContain(join(home, `extensions/my-guard.${ext}`));
      expect(run.stderr).toMatch(/same name/);
      expect(existsSync(join(home, 'extensions/my-guard'))).toBe(false);
    },
  );

  it('refuses it in the project with --project too', async () => {
    const project = tree({ '.git/HEAD': '', '.hermes/extensions/local.mjs': '' });
    const run = await hermes(tree(), 'extensions', 'init', 'local', '--project', '--cwd', project);
    expect(run.code).toBe(2);
    expect(existsSync(join(project, '.hermes/extensions/local'))).toBe(false);
  });
});
