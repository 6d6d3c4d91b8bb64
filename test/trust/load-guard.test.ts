import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { trustProject } from 'hermes-extensions';
import { describe, expect, it } from 'vitest';
import { projectBundleDir, transpileCacheDir } from '../../src/config/locations.js';
import { moduleLoader } from '../../src/modules/import-module.js';
import { guardFor } from '../../src/trust/project-trust.js';
import { tree, tsExtension, write } from '../support/fixtures.js';

describe('the load guard', () => {
  /** A trusted project whose extension imports lib/helper.ts, and what it takes to load it. */
  async function trusted() {
    const marker = join(tree(), 'ran');
    const project = tree({
      '.git/HEAD': '',
      '.hermes/extensions/ext.ts': tsExtension('ext', '', "import '../../lib/helper';"),
      'lib/helper.ts': 'export const helper = 1;',
    });
    const home = tree();
    const trust = await trustProject(project, home);
    const loader = moduleLoader(transpileCacheDir(home), projectBundleDir(home));
    const guard = guardFor(project, home, trust.records);
    const entry = join(project, '.hermes/extensions/ext.ts');
    const edit = () =>
      write(project, {
        'lib/helper.ts': `import { writeFileSync } from 'node:fs'; writeFileSync(${JSON.stringify(marker)}, 'x');`,
      });
    return { marker, loader, guard, entry, edit, home };
  }

  it('refuses a file changed after the check that the project is trusted, when its bundle is made again', async () => {
    const { marker, loader, guard, entry, edit, home } = await trusted();
    // The bundles trusting made are gone (a cleaned cache): the next load bundles the files again.
    rmSync(projectBundleDir(home), { recursive: true });
    edit();
    await expect(loader.import(entry, guard)).rejects.toThrow(
      /imports lib\/helper\.ts, which changed since the project was trusted/,
    );
    expect(existsSync(marker)).toBe(false);
    // Unguarded (the user's own code) it runs as it is now.
    await expect(loader.import(entry)).resolves.toBeDefined();
    expect(existsSync(marker)).toBe(true);
  });

  it('runs the bundle of the trusted bytes, never an edit made since, once the bundle is made', async () => {
    const { marker, loader, guard, entry, edit } = await trusted();
    await loader.import(entry, guard); // makes and keeps the bundle for this record
    edit();
    await expect(loader.import(entry, guard)).resolves.toMatchObject({
      default: { name: 'ext' },
    });
    expect(existsSync(marker)).toBe(false);
  });
});
