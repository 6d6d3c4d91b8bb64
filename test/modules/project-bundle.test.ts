import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { bundleProjectModule } from '../../src/modules/project-code/bundle.js';
import { importProjectModule } from '../../src/modules/project-code/load-bundle.js';
import { tree } from '../support/fixtures.js';

/** The module `entry` of `project` as project code runs it: bundled, then evaluated. */
function run(project: string, entry: string, allowed?: ReadonlyMap<string, string>) {
  return importProjectModule(join(project, entry), {
    root: project,
    allowed,
    cacheDir: join(tree(), 'bundles'),
  });
}

describe('a project module runs from its bundle as it would from its files', () => {
  it('keeps each module its own import.meta, __dirname and __filename', async () => {
    const project = tree({
      'ext/index.ts': `import { where as helperWhere } from './lib/helper.mjs';
import cjs from './lib/old.cjs';
export const where = { url: import.meta.url, dirname: import.meta.dirname, filename: import.meta.filename };
export const helper = helperWhere;
export const old = cjs;
`,
      'ext/lib/helper.mjs': `import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
const __dirname = dirname(fileURLToPath(import.meta.url));
export const where = { dirname: __dirname, url: import.meta.url };
`,
      'ext/lib/old.cjs':
        '#!/usr/bin/env node\nmodule.exports = { dirname: __dirname, filename: __filename };\n',
    });
    const module = await run(project, 'ext/index.ts');
    expect(module.where).toEqual({
      url: pathToFileURL(join(project, 'ext/index.ts')).href,
      dirname: join(project, 'ext'),
      filename: join(project, 'ext/index.ts'),
    });
    expect(module.helper).toEqual({
      dirname: join(project, 'ext/lib'),
      url: pathToFileURL(join(project, 'ext/lib/helper.mjs')).href,
    });
    expect(module.old).toEqual({
      dirname: join(project, 'ext/lib'),
      filename: join(project, 'ext/lib/old.cjs'),
    });
  });

  it('runs TypeScript enums, JSON imports and top-level await', async () => {
    const project = tree({
      'ext.ts': `import data from './data.json';
enum Level { Low = 1, High }
await new Promise((resolve) => setTimeout(resolve, 1));
export const out = { high: Level.High, data };
`,
      'data.json': '{ "rules": ["a"] }',
    });
    expect((await run(project, 'ext.ts')).out).toEqual({ high: 2, data: { rules: ['a'] } });
  });

  it('gives computed import(), require() and import.meta.resolve only built-ins and the framework', async () => {
    const project = tree({
      'ext.mjs': `import { createRequire } from 'node:module';
const name = (s) => s;
const results = {};
for (const [label, attempt] of Object.entries({
  builtin: () => import(name('node:path')),
  framework: () => import(name('zod')),
  file: () => import(name(new URL('./other.mjs', import.meta.url).href)),
  relative: () => import(name('./other.mjs')),
  requireFile: async () => require(name('./other.cjs')),
  requireBuiltin: async () => require(name('fs')),
  resolve: async () => import.meta.resolve(name('./other.mjs')),
})) {
  try {
    const value = await attempt();
    results[label] = typeof value === 'object' ? 'loaded' : String(value);
  } catch (error) {
    results[label] = error.code ?? error.message;
  }
}
export { results };
void createRequire;
`,
      'other.mjs': 'export default 1;',
      'other.cjs': 'module.exports = 1;',
    });
    expect((await run(project, 'ext.mjs')).results).toEqual({
      builtin: 'loaded',
      framework: 'loaded',
      file: 'ERR_HERMES_NOT_TRUSTED',
      relative: 'ERR_HERMES_NOT_TRUSTED',
      requireFile: 'ERR_HERMES_NOT_TRUSTED',
      requireBuiltin: 'loaded',
      resolve: 'ERR_HERMES_NOT_TRUSTED',
    });
  });

  it('shares the running framework and zod, and refuses a subpath the framework does not provide', async () => {
    const project = tree({
      'ext.ts': `import { defineExtension } from 'hermes-extensions';
import { z } from 'zod';
export const same = { defineExtension, z };
`,
      'host.ts': `import { withHermes } from 'hermes-extensions/ai-sdk';\nexport default withHermes;`,
    });
    const framework = await import('hermes-extensions');
    const zod = await import('zod');
    const module = await run(project, 'ext.ts');
    expect(module.same).toEqual({ defineExtension: framework.defineExtension, z: zod.z });
    await expect(run(project, 'host.ts')).rejects.toThrow(
      /"hermes-extensions\/ai-sdk" is not one of the framework's modules extension code can import/,
    );
  });

  it('records each file it read, with the digest of the bytes it compiled, and refuses others', async () => {
    const project = tree({
      'ext.ts': "import { a } from './a';\nexport const value = a;",
      'a.ts': 'export const a = 1;',
      'unused.ts': 'export const b = 2;',
    });
    const bundle = await bundleProjectModule(join(project, 'ext.ts'), { root: project });
    expect(bundle.inputs.map((i) => i.path)).toEqual(['a.ts', 'ext.ts']);
    const allowed = new Map(bundle.inputs.map((i) => [i.path, i.sha256]));
    await expect(run(project, 'ext.ts', allowed)).resolves.toMatchObject({ value: 1 });
    allowed.delete('a.ts');
    await expect(run(project, 'ext.ts', allowed)).rejects.toThrow(
      /^imports a\.ts, which is not part of what was trusted; review it and run `hermes extensions trust`$/,
    );
    allowed.set('a.ts', '0'.repeat(64));
    await expect(run(project, 'ext.ts', allowed)).rejects.toThrow(
      /imports a\.ts, which changed since/,
    );
  });

  it('refuses a native addon and an import that does not resolve, saying which', async () => {
    const project = tree({
      'addon.ts': "import addon from './build/x.node';\nexport default addon;",
      'build/x.node': 'not really',
      'missing.ts': "import x from 'not-installed';\nexport default x;",
    });
    await expect(run(project, 'addon.ts')).rejects.toThrow(
      /build\/x\.node cannot be loaded as project code/,
    );
    await expect(run(project, 'missing.ts')).rejects.toThrow(/not-installed/);
  });

  it('keeps the bundle of an entry with what it was made from, named after the entry for stack traces', async () => {
    const project = tree({ 'ext.ts': 'export function fail() { throw new Error("boom"); }' });
    const cacheDir = join(tree(), 'bundles');
    const bundle = await bundleProjectModule(join(project, 'ext.ts'), { root: project });
    const allowed = new Map(bundle.inputs.map((i) => [i.path, i.sha256]));
    const options = { root: project, allowed, cacheDir };
    const first = await importProjectModule(join(project, 'ext.ts'), options);
    // The bundle, named by its digest, and the index of what it was made from.
    const kept = readdirSync(cacheDir);
    expect(kept).toHaveLength(2);
    expect(kept.filter((f) => /^[0-9a-f]{64}\.json$/.test(f))).toHaveLength(1);
    expect(kept.filter((f) => /^[0-9a-f]{64}\.mjs$/.test(f))).toHaveLength(1);
    const second = await importProjectModule(join(project, 'ext.ts'), options);
    expect(second).toBe(first);
    // Node names the module's frames by this, not by its data: URL (the whole bundle).
    expect(bundle.code.trimEnd().split('\n').at(-1)).toBe(
      `//# sourceURL=hermes-bundle:${join(project, 'ext.ts')}`,
    );
  });
});
