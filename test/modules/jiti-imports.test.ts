import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { moduleLoader } from '../../src/modules/import-module.js';
import { tree } from '../support/fixtures.js';

/**
 * The relative imports of a TypeScript extension, which the loader has jiti find at the second
 * look (src/modules/jiti-imports.ts): each form of import finds what jiti itself would have.
 */
describe('relative imports of a TypeScript extension', () => {
  const load = (files: Record<string, string>) => {
    const folder = tree(files);
    return moduleLoader(join(tree(), 'jiti'), join(tree(), 'bundles')).import(
      join(folder, 'index.ts'),
    );
  };

  it('finds the TypeScript file an import names as `.js`, in every form of import', async () => {
    const module = await load({
      'index.ts': [
        "import { a } from './a.js';",
        "export { b } from './b.js';",
        "export * from './c.js';",
        "import type { D } from './d.js';",
        "const { e } = await import('./lib/e.js');",
        "export const answer: D = a + ' ' + e;",
      ].join('\n'),
      'a.ts': "export const a = 'a.ts';",
      'b.ts': "export const b = 'b.ts';",
      'c.ts': "export const c = 'c.ts';",
      'd.ts': 'export type D = string;',
      'lib/e.ts': "import { a } from '../a.js';\nexport const e = 'e.ts after ' + a;",
    });
    expect(module).toMatchObject({ answer: 'a.ts e.ts after a.ts', b: 'b.ts', c: 'c.ts' });
  });

  it('loads the JavaScript file when one of that name is there, as jiti does', async () => {
    const module = await load({
      'index.ts': "export { which } from './helper.js';",
      'helper.ts': "export const which = 'helper.ts';",
      'helper.js': "export const which = 'helper.js';",
    });
    expect(module.which).toBe('helper.js');
  });

  it('leaves a string that only looks like an import as it is', async () => {
    const module = await load({
      'index.ts':
        "export const text = \"import { a } from './a.js'\";\nexport const path = './a.js';",
    });
    expect(module).toMatchObject({ text: "import { a } from './a.js'", path: './a.js' });
  });

  it('says which file is missing when neither is there', async () => {
    await expect(load({ 'index.ts': "export { x } from './missing.js';" })).rejects.toThrow(
      /missing/,
    );
  });
});
