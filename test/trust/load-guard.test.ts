import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { trustProject } from 'hermes-extensions';
import { describe, expect, it } from 'vitest';
import { transpileCacheDir } from '../../src/config/locations.js';
import { moduleLoader } from '../../src/modules/import-module.js';
import { guardFor } from '../../src/trust/project-trust.js';
import { tree, tsExtension, write } from '../support/fixtures.js';

describe('the load guard', () => {
  it('checks the bytes read even when jiti has the old version in its disk cache', async () => {
    const marker = join(tree(), 'ran');
    const project = tree({
      '.git/HEAD': '',
      '.hermes/extensions/ext.ts': tsExtension('ext', '', "import '../../lib/helper';"),
      'lib/helper.ts': 'export const helper = 1;',
    });
    const home = tree();
    const trust = await trustProject(project, home);
    const loader = moduleLoader(transpileCacheDir(home));
    const guard = guardFor(project, home, trust.records);
    const entry = join(project, '.hermes/extensions/ext.ts');
    await loader.import(entry, guard); // warms jiti's disk cache
    // Changed after the check that the project is trusted, before its load.
    write(project, {
      'lib/helper.ts': `import { writeFileSync } from 'node:fs'; writeFileSync(${JSON.stringify(marker)}, 'x');`,
    });
    await expect(loader.import(entry, guard)).rejects.toThrow(
      /reads lib\/helper\.ts, which changed since the project was trusted/,
    );
    expect(existsSync(marker)).toBe(false);
    // And unguarded reads go on as before once the load is over.
    await expect(loader.import(entry)).resolves.toBeDefined();
    expect(existsSync(marker)).toBe(true);
  });
});
