import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadRuntime } from 'hermes-extensions';
import { memoryLogger } from 'hermes-extensions/testing';
import { describe, expect, it } from 'vitest';
import { tree, tsExtension, write } from '../support/fixtures.js';
import { blockedOutcome } from '../support/helpers.js';

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

  it('gives JavaScript the running framework and zod, not copies; its own zod where it has one', async () => {
    const seen = '__hermesSeenModules';
    const reporter = (name: string, imports: string) => `${imports}
      globalThis.${seen} = { ...globalThis.${seen}, '${name}': { framework, policy, z } };
      export default { name: '${name}', setup() {} };`;
    const home = tree({
      'extensions/shared.mjs': reporter(
        'shared',
        `import * as framework from 'hermes-extensions'; import * as policy from 'hermes-extensions/policy'; import { z } from 'zod';`,
      ),
      'extensions/pinned/index.mjs': reporter(
        'pinned',
        `import * as framework from 'hermes-extensions'; const policy = undefined; import { z } from 'zod';`,
      ),
      'extensions/pinned/node_modules/zod/package.json': JSON.stringify({
        name: 'zod',
        type: 'module',
        exports: './index.js',
      }),
      'extensions/pinned/node_modules/zod/index.js': 'export const z = { pinned: true };',
    });
    const runtime = await loadRuntime({ home, cwd: tree(), ...quiet });
    expect(runtime.diagnostics).toEqual([]);
    const modules = (globalThis as Record<string, unknown>)[seen] as Record<
      string,
      { framework: Record<string, unknown>; policy: Record<string, unknown>; z: unknown }
    >;
    const host = await import('hermes-extensions');
    const { z } = await import('zod');
    expect(modules.shared?.framework.defineExtension).toBe(host.defineExtension);
    expect(modules.shared?.framework.block).toBe(host.block);
    expect(modules.shared?.policy.analyzeShell).toBe(
      (await import('hermes-extensions/policy')).analyzeShell,
    );
    expect(modules.shared?.z).toBe(z);
    expect(modules.pinned?.framework.defineExtension).toBe(host.defineExtension);
    expect(modules.pinned?.z).toEqual({ pinned: true });
    delete (globalThis as Record<string, unknown>)[seen];
  });

  it('gives extensions the guard-author helpers at hermes-extensions/policy, in TypeScript and JavaScript', async () => {
    // A write through the shell, found by the policy helpers whichever loader ran the file.
    const guard = `hermes.on('intercept_tool_call', (e) => {
      const shell = analyzeShell(String(e.toolArgs.command));
      return shell.kind === 'analyzed' && shell.writes.length > 0 ? block('a write') : undefined;
    }, { tools: ['bash'] });`;
    const policy = `import { analyzeShell } from 'hermes-extensions/policy';`;
    const homes = {
      typescript: tree({ 'extensions/guard.ts': tsExtension('guard', guard, policy) }),
      javascript: tree({
        'extensions/guard.mjs': `import { block, defineExtension } from 'hermes-extensions';
          ${policy}
          export default defineExtension({ name: 'guard', setup(hermes) { ${guard} } });`,
      }),
    };
    for (const home of Object.values(homes)) {
      const runtime = await loadRuntime({ home, cwd: tree(), ...quiet });
      expect(runtime.diagnostics).toEqual([]);
      const run = (command: string) =>
        runtime.runTurn({ sessionId: 's' }, (t) =>
          t.interceptToolCall({ toolName: 'bash', toolArgs: { command } }),
        );
      expect(await run('cat notes.md')).toMatchObject({ blocked: false });
      expect(await run('echo hi > notes.md')).toMatchObject({ blocked: true, blockedBy: 'guard' });
      await runtime.close();
    }
  });
});

describe('loadRuntime: failures stay with their extension', () => {
  it('reports each failure kind with a useful diagnostic and keeps the healthy extension working', async () => {
    const home = tree({
      'extensions/healthy.ts': tsExtension(
        'healthy',
        `hermes.on('intercept_tool_call', () => block('healthy ran'));`,
      ),
      'extensions/syntax.ts': 'export default defineExtension({ name: "syntax", setup( {',
      'extensions/throws-on-import.mjs': `throw new Error('exploded while importing');`,
      'extensions/no-default.ts': `export const name = 'no-default';`,
      'extensions/not-an-extension.mjs': `export default { name: 'Not Valid' };`,
      'extensions/setup-throws.ts': tsExtension(
        'setup-throws',
        `throw new Error('setup exploded');`,
      ),
      'extensions/typo-hook.ts': tsExtension(
        'typo-hook',
        `hermes.on('intercept_toolcall' as never, () => undefined);`,
      ),
      'extensions/missing-import.mjs': `import 'a-package-nobody-installed'; export default {};`,
      'extensions/empty-folder/README.md': 'no entry here',
    });
    const runtime = await loadRuntime({ home, cwd: tree(), ...quiet });
    const status = Object.fromEntries(runtime.extensions.map((e) => [e.name, e.status]));
    const healthyRuntime = async () => {
      // Tool calls are refused while any of them is broken (on_load_error: block, the default);
      // with warn, the healthy extension guards them on its own.
      write(home, { 'config.yaml': 'extensions:\n  on_load_error: warn\n' });
      return loadRuntime({ home, cwd: tree(), ...quiet });
    };
    expect(status).toEqual({
      healthy: 'enabled',
      'missing-import': 'error',
      'no-default': 'error',
      'not-an-extension': 'error',
      'setup-throws': 'error',
      syntax: 'error',
      'throws-on-import': 'error',
      'typo-hook': 'error',
    });
    const said = (name: string) =>
      runtime.diagnostics
        .filter((d) => d.extension === name)
        .map((d) => d.message)
        .join('\n');
    expect(said('syntax')).toMatch(/syntax\.ts/);
    expect(said('throws-on-import')).toMatch(/exploded while importing/);
    expect(said('no-default')).toMatch(/no default export/);
    expect(said('not-an-extension')).toMatch(/lower-case words joined by dashes/);
    expect(said('setup-throws')).toMatch(/setup exploded/);
    expect(said('typo-hook')).toMatch(/Did you mean "intercept_tool_call"/);
    expect(said('missing-import')).toMatch(/a-package-nobody-installed/);
    expect(runtime.diagnostics.map((d) => d.message).join('\n')).toMatch(
      /empty-folder has no extension entry/,
    );
    for (const d of runtime.diagnostics.filter((d) => d.extension)) expect(d.file).toContain(home);
    const refused = await runtime.runTurn({ sessionId: 's' }, (t) =>
      t.interceptToolCall({ toolName: 'x', toolArgs: {} }),
    );
    expect(refused).toMatchObject({ blocked: true, blockedBy: 'missing-import' });
    expect(blockedOutcome(refused).message).toMatch(/and 4 more/);
    const outcome = await (await healthyRuntime()).runTurn({ sessionId: 's' }, (t) =>
      t.interceptToolCall({ toolName: 'x', toolArgs: {} }),
    );
    expect(blockedOutcome(outcome).message).toBe('healthy ran');
  });

  it('validates per-extension config against the schema, naming the key path', async () => {
    const home = tree({
      'config.yaml': 'extensions:\n  strict:\n    level: high\n',
      'extensions/strict.ts': `import { defineExtension } from 'hermes-extensions';
        import { z } from 'zod';
        export default defineExtension({ name: 'strict', configSchema: z.object({ level: z.number() }), setup() {} });`,
    });
    const runtime = await loadRuntime({ home, cwd: tree(), ...quiet });
    expect(runtime.extensions[0]?.status).toBe('error');
    expect(runtime.diagnostics[0]?.message).toMatch(/extensions\.strict\.level/);
  });

  it('names the config file a value that fails the schema comes from, in the message and as its file', async () => {
    const strict = `import { defineExtension } from 'hermes-extensions';
      import { z } from 'zod';
      export default defineExtension({ name: 'strict', configSchema: z.object({ level: z.number(), tag: z.string() }), setup() {} });`;
    const home = tree({
      'config.yaml': 'extensions:\n  strict:\n    level: 1\n    tag: mine\n',
      'extensions/strict.ts': strict,
    });
    // The project's value of `level` is the one that applies, and the one that is wrong.
    const project = tree({
      '.git/HEAD': '',
      '.hermesrc.yaml': 'extensions:\n  strict:\n    level: high\n',
    });
    const runtime = await loadRuntime({ home, cwd: project, trust: true, ...quiet });
    const schema = runtime.diagnostics.filter((d) => d.code === 'CONFIG_SCHEMA');
    expect(schema).toMatchObject([{ extension: 'strict', file: join(project, '.hermesrc.yaml') }]);
    expect(schema[0]?.message).toContain(
      `config for "strict" in ${join(project, '.hermesrc.yaml')}`,
    );
    expect(schema[0]?.message).not.toContain(join(home, 'config.yaml'));

    // A required key no file sets: every file that configures the extension is named.
    write(home, { 'config.yaml': 'extensions:\n  strict:\n    level: 1\n' });
    write(project, { '.hermesrc.yaml': 'extensions:\n  strict:\n    level: 2\n' });
    const missing = await loadRuntime({ home, cwd: project, trust: true, ...quiet });
    expect(missing.diagnostics.find((d) => d.code === 'CONFIG_SCHEMA')?.message).toContain(
      `in ${join(home, 'config.yaml')} and ${join(project, '.hermesrc.yaml')} does not match`,
    );
  });
});

describe('loadRuntime: a root the host pinned', () => {
  it('is the project root whatever markers lie below it, with its extensions, config and trust', async () => {
    const home = tree();
    const project = tree({
      '.git/HEAD': '',
      '.hermes/extensions/local.ts': tsExtension(
        'local',
        `hermes.on('intercept_tool_call', () => block('the project says no'));`,
      ),
      'plans/x/.git': 'gitdir: nowhere\n',
      'plans/x/.hermes/notes.md': 'mine\n',
    });
    const below = join(project, 'plans/x');
    const found = await loadRuntime({ home, cwd: below, trust: true, ...quiet });
    expect(found.projectRoot).toBe(below);
    const pinned = await loadRuntime({ home, cwd: below, root: project, trust: true, ...quiet });
    expect(pinned.projectRoot).toBe(project);
    expect(pinned.extensions.map((e) => e.name)).toEqual(['local']);
    // Untrusted, the notice names the pinned root, not the folder the event came from.
    const untrusted = await loadRuntime({ home, cwd: below, root: project, ...quiet });
    expect(untrusted.diagnostics.find((d) => d.code === 'UNTRUSTED')?.file).toBe(project);
    // A folder outside the root has none of the root's config: the search starts at the root.
    const outside = await loadRuntime({ home, cwd: tree(), root: project, trust: true, ...quiet });
    expect(outside.projectRoot).toBe(project);
  });
});

describe('loadRuntime: what extensions see', () => {
  it('gives hermes.projectRoot, hermes.extensionDir and hermes.log', async () => {
    const home = tree({
      'extensions/folder/index.ts': tsExtension(
        'folder',
        `hermes.log.info(JSON.stringify([hermes.projectRoot, hermes.extensionDir]));`,
      ),
      'extensions/single.ts': tsExtension(
        'single',
        `hermes.log.info(JSON.stringify([hermes.projectRoot, hermes.extensionDir]));`,
      ),
    });
    const project = tree({ '.git/HEAD': '', 'src/deep/x.txt': '' });
    const logger = memoryLogger();
    await loadRuntime({ home, cwd: join(project, 'src/deep'), logger });
    expect(logger.lines).toEqual([
      {
        level: 'info',
        message: `[hermes:folder] ${JSON.stringify([project, join(home, 'extensions/folder')])}`,
      },
      {
        level: 'info',
        message: `[hermes:single] ${JSON.stringify([project, join(home, 'extensions')])}`,
      },
    ]);
  });

  it('warns about an extension that is slow to load', async () => {
    const home = tree({
      'extensions/slow.ts': tsExtension(
        'slow',
        'await new Promise((r) => setTimeout(r, 40));',
      ).replace('setup(hermes)', 'async setup(hermes)'),
    });
    const runtime = await loadRuntime({ home, cwd: tree(), slowLoadMs: 20, ...quiet });
    expect(runtime.extensions[0]?.status).toBe('enabled');
    expect(runtime.diagnostics).toMatchObject([
      {
        severity: 'warning',
        extension: 'slow',
        message: expect.stringMatching(/took \d+ ms to load/),
      },
    ]);
  });
});

describe("this repository's own hermes.config.ts", () => {
  it('loads (it imports the framework it configures) when the project is trusted', async () => {
    const repo = fileURLToPath(new URL('../..', import.meta.url));
    const runtime = await loadRuntime({ cwd: repo, home: tree(), trust: true, ...quiet });
    expect(runtime.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  });
});

describe('the TypeScript cache', () => {
  it('lives in $HERMES_HOME/cache/jiti', async () => {
    const home = tree({ 'extensions/cached.ts': tsExtension('cached') });
    await loadRuntime({ home, cwd: tree(), ...quiet });
    expect(readdirSync(join(home, 'cache/jiti')).length).toBeGreaterThan(0);
  });
});
