import { join } from 'node:path';
import { loadRuntime } from 'hermes-extensions';
import { memoryLogger } from 'hermes-extensions/testing';
import { describe, expect, it } from 'vitest';
import { tree, tsExtension } from './fixtures.js';

const quiet = { logger: memoryLogger() };

describe('loadRuntime: loading extensions from disk', () => {
  it('loads a TypeScript extension that uses an enum, importing the framework and zod it did not install', async () => {
    const home = tree({
      'extensions/guard/index.ts': tsExtension(
        'guard',
        `hermes.on('intercept_tool_call', (e) => e.toolName === Tool.Write ? block('no writes') : undefined);`,
        'enum Tool { Write = "write" }',
      ),
    });
    const project = tree();
    const runtime = await loadRuntime({ home, cwd: project, ...quiet });
    expect(runtime.diagnostics).toEqual([]);
    expect(runtime.extensions).toMatchObject([
      {
        name: 'guard',
        source: 'global',
        status: 'enabled',
        version: '1.0.0',
        path: join(home, 'extensions/guard'),
      },
    ]);
    const outcome = await runtime.runTurn({ sessionId: 's' }, (t) =>
      t.interceptToolCall({ toolName: 'write', toolArgs: {} }),
    );
    expect(outcome).toMatchObject({ blocked: true, blockedBy: 'guard' });
  });

  it('loads plain JavaScript with native import, a single-file extension and a package entry', async () => {
    const home = tree({
      'extensions/js-ext/index.mjs': `import { defineExtension, rewrite } from 'hermes-extensions';
        import { z } from 'zod';
        export default defineExtension({ name: 'js-ext', configSchema: z.object({ tag: z.string().default('js') }),
          setup(h) { h.on('transform_user_input', (e) => rewrite(e.userMessage + ' [' + h.config.tag + ']')); } });`,
      'extensions/single.ts': tsExtension(
        'single',
        `hermes.on('transform_user_input', (e) => ({ action: 'rewrite', value: e.userMessage + ' [single]' }), { priority: 200 });`,
      ),
      'extensions/pkg/package.json': JSON.stringify({
        name: 'pkg',
        type: 'module',
        exports: { '.': { import: './lib/main.mjs' } },
      }),
      'extensions/pkg/lib/main.mjs': `export default { name: 'from-package', setup(h) { h.on('before_llm_call', () => undefined); } };`,
    });
    const runtime = await loadRuntime({ home, cwd: tree(), ...quiet });
    expect(runtime.diagnostics).toEqual([]);
    expect(runtime.extensions.map((e) => [e.name, e.status])).toEqual([
      ['from-package', 'enabled'],
      ['js-ext', 'enabled'],
      ['single', 'enabled'],
    ]);
    const outcome = await runtime.runTurn({ sessionId: 's' }, (t) => t.transformUserInput('hi'));
    expect(outcome.value).toBe('hi [js] [single]');
  });
});
