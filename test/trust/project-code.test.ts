import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { inspectProjectTrust, loadRuntime, trustProject } from 'hermes-extensions';
import { memoryLogger } from 'hermes-extensions/testing';
import { describe, expect, it } from 'vitest';
import { tree, write } from '../support/fixtures.js';
import { runBin } from '../support/run-bin.js';

/**
 * Hostile repositories against the loader of project code: trusted as they were, then changed as
 * a pull, a teammate or the agent would change them. Whatever runs must be bytes the trust record
 * holds: a file whose code runs leaves a marker, and the tests look for the markers.
 */

const quiet = { logger: memoryLogger() };

/** Code that leaves `marker` (with `text` in it) when it runs. */
function mark(marker: string, text = 'ran'): string {
  return `import { appendFileSync as __mark } from 'node:fs'; __mark(${JSON.stringify(marker)}, ${JSON.stringify(`${text}\n`)});\n`;
}

/** An ES module extension (`.mjs`): `imports` at the top, `body` inside setup. */
function mjsExtension(name: string, imports = '', body = ''): string {
  return `import { defineExtension, block, pass } from 'hermes-extensions';
${imports}
export default defineExtension({
  name: '${name}',
  async setup(hermes) {
    ${body}
  },
});
`;
}

async function load(project: string, home: string) {
  return loadRuntime({ home, cwd: project, ...quiet });
}

function statusOf(runtime: Awaited<ReturnType<typeof load>>, name: string) {
  return runtime.extensions.find((e) => e.name === name);
}

function marks(marker: string): string[] {
  return existsSync(marker) ? readFileSync(marker, 'utf8').trim().split('\n') : [];
}

describe('what runs is what the review listed', () => {
  it('runs the file of a package that the review recorded, whatever export condition Node would pick', async () => {
    const marker = join(tree(), 'ran');
    const project = tree({
      '.git/HEAD': '',
      '.hermes/extensions/guard.mjs': mjsExtension('guard', "import 'dual';"),
      'node_modules/dual/package.json': JSON.stringify({
        name: 'dual',
        exports: {
          '.': {
            alt: './alt.mjs',
            'module-sync': './sync.mjs',
            import: './index.mjs',
            default: './index.cjs',
          },
        },
      }),
      'node_modules/dual/alt.mjs': mark(marker, 'alt'),
      'node_modules/dual/sync.mjs': mark(marker, 'sync'),
      'node_modules/dual/index.mjs': mark(marker, 'index'),
      'node_modules/dual/index.cjs': '',
    });
    const home = tree();
    const trust = await trustProject(project, home);
    expect(statusOf(await load(project, home), 'guard')?.status).toBe('enabled');
    const ran = marks(marker);
    expect(ran).toHaveLength(1);
    const chosen = `node_modules/dual/${ran[0]}.mjs`;
    const other = `node_modules/dual/${ran[0] === 'sync' ? 'index' : 'sync'}.mjs`;
    expect(trust.records.map((r) => r.path)).toContain(chosen);
    expect(trust.records.map((r) => r.path)).not.toContain(other);
    // The command line, as a hook runs it, with conditions of its own in NODE_OPTIONS: the same.
    const listed = await runBin(['extensions', 'list', '--cwd', project], {
      HERMES_HOME: home,
      NODE_OPTIONS: '--conditions=alt',
    });
    expect(listed.stdout).toMatch(/guard/);
    expect(marks(marker)).toEqual([ran[0], ran[0]]);

    // The file that was not reviewed changes: it never runs, and trust holds.
    write(project, { [other]: mark(marker, 'unreviewed') });
    expect(inspectProjectTrust({ cwd: project, home }).state).toBe('trusted');
    await load(project, home);
    expect(marks(marker)).not.toContain('unreviewed');
    // The file that runs changes: the guard as trusted holds, and the edit does not run.
    write(project, { [chosen]: mark(marker, 'edited') });
    const runtime = await load(project, home);
    expect(statusOf(runtime, 'guard')?.status).toBe('enabled');
    expect(runtime.diagnostics.find((d) => d.code === 'TRUST_HELD')?.severity).toBe('warning');
    expect(marks(marker)).not.toContain('edited');
  });

  it('records and checks what an .mjs extension imports, and refuses a computed import of a file added since', async () => {
    const marker = join(tree(), 'ran');
    const project = tree({
      '.git/HEAD': '',
      '.hermes/extensions/guard.mjs': mjsExtension(
        'guard',
        "import { rule } from './lib/rule.mjs';",
        "const name = ['la', 'te'].join('');\n    hermes.on('intercept_tool_call', () => rule());\n    await import('./lib/' + name + '.mjs');",
      ),
      '.hermes/extensions/lib/rule.mjs': 'export const rule = () => undefined;',
    });
    const home = tree();
    // A global .mjs extension too: it loads natively, beside the project's bundles.
    write(home, { 'extensions/mine.mjs': mjsExtension('mine') });
    write(project, { '.hermes/extensions/lib/late.mjs': '' });
    await trustProject(project, home);
    write(project, { '.hermes/extensions/lib/late.mjs': mark(marker) });
    // Changed since trust: untrusted (late.mjs is under .hermes/extensions, recorded whole).
    expect(inspectProjectTrust({ cwd: project, home }).state).toBe('changed');

    // Trusted as it is now, the computed import still cannot reach a file on disk.
    await trustProject(project, home);
    const runtime = await load(project, home);
    expect(marks(marker)).toEqual([]);
    expect(statusOf(runtime, 'mine')?.status).toBe('enabled');
    expect(statusOf(runtime, 'guard')?.status).toBe('error');
    expect(statusOf(runtime, 'guard')?.reason).toMatch(
      /imports "\.\/lib\/late\.mjs" by a name computed when it runs; project code loads only what was bundled/,
    );
  });

  it('refuses an import made after loading, by setup or by a handler', async () => {
    const marker = join(tree(), 'ran');
    const project = tree({
      '.git/HEAD': '',
      '.hermes/extensions/late.ts': `import { defineExtension, block } from 'hermes-extensions';
export default defineExtension({
  name: 'late',
  setup(hermes) {
    hermes.on('intercept_tool_call', async () => {
      const file = new URL('./added.ts', import.meta.url).href;
      try {
        await import(file);
      } catch (error) {
        return block(String((error as Error).message));
      }
      return block('imported');
    });
  },
});
`,
    });
    const home = tree();
    await trustProject(project, home);
    const runtime = await load(project, home);
    expect(statusOf(runtime, 'late')?.status).toBe('enabled');
    // Added after trust and after the load, where the handler looks for it.
    write(project, { '.hermes/extensions/added.ts': mark(marker) });
    const outcome = await runtime.runTurn({ sessionId: 's' }, (t) =>
      t.interceptToolCall({ toolName: 'bash', toolArgs: { command: 'ls' } }),
    );
    expect(marks(marker)).toEqual([]);
    expect(JSON.stringify(outcome)).toMatch(/by a name computed when it runs/);
    await runtime.close();
  });

  it('records imports that leave the project root, and a change to one is held', async () => {
    const marker = join(tree(), 'ran');
    const mono = tree({
      'shared/policy.ts': 'export const limit = 1;',
      'node_modules/hoisted/package.json': JSON.stringify({ name: 'hoisted', main: 'index.js' }),
      'node_modules/hoisted/index.js': 'module.exports = { ok: true };',
      'app/.git/HEAD': '',
      'app/.hermes/extensions/guard.ts': `import { defineExtension } from 'hermes-extensions';
import { limit } from '../../../shared/policy';
import hoisted from 'hoisted';
export default defineExtension({ name: 'guard', setup() { void limit; void hoisted; } });
`,
    });
    const project = join(mono, 'app');
    const home = tree();
    const trust = await trustProject(project, home);
    const paths = trust.records.map((r) => r.path);
    expect(paths).toContain('../shared/policy.ts');
    expect(paths).toContain('../node_modules/hoisted/index.js');
    expect(paths).toContain('../node_modules/hoisted/package.json');
    expect(trust.files).toContain(join(mono, 'shared/policy.ts'));
    expect(statusOf(await load(project, home), 'guard')?.status).toBe('enabled');

    write(mono, { 'shared/policy.ts': `${mark(marker)}export const limit = 2;` });
    const changed = inspectProjectTrust({ cwd: project, home });
    expect(changed.state).toBe('changed');
    expect(changed.changes?.changed).toEqual(['../shared/policy.ts']);
    // Held: the guard runs as trusted, from its bundle; the edit outside the root never runs.
    expect(statusOf(await load(project, home), 'guard')?.status).toBe('enabled');
    expect(marks(marker)).toEqual([]);
  });
});

describe('the framework is not project code', () => {
  it("never reads or lists the project's own copy of the framework, and its update keeps the project trusted", async () => {
    const marker = join(tree(), 'ran');
    const fake = (file: string) => `${mark(marker, file)}export const defineExtension = (d) => d;`;
    const project = tree({
      '.git/HEAD': '',
      'node_modules/hermes-extensions/package.json': JSON.stringify({
        name: 'hermes-extensions',
        type: 'module',
        exports: { '.': './dist/index.js', './policy': './dist/policy.js' },
      }),
      'node_modules/hermes-extensions/dist/index.js': fake('index'),
      'node_modules/hermes-extensions/dist/policy.js': fake('policy'),
      '.hermes/extensions/guard.ts': `import { defineExtension, block } from 'hermes-extensions';
import { isWithin } from 'hermes-extensions/policy';
import { z } from 'zod';
export default defineExtension({
  name: 'guard',
  configSchema: z.object({}),
  setup(hermes) {
    hermes.on('intercept_tool_call', () => (typeof isWithin === 'function' ? block('framework') : undefined));
  },
});
`,
    });
    const home = tree();
    const trust = await trustProject(project, home);
    expect(trust.records.map((r) => r.path)).toEqual(['.hermes/extensions/guard.ts']);
    const runtime = await load(project, home);
    expect(statusOf(runtime, 'guard')?.status).toBe('enabled');
    expect(marks(marker)).toEqual([]);
    await runtime.close();

    // `npm update` of the framework: the project stays trusted, its guard still runs.
    write(project, { 'node_modules/hermes-extensions/dist/index.js': fake('updated') });
    expect(inspectProjectTrust({ cwd: project, home }).state).toBe('trusted');
    const again = await load(project, home);
    expect(statusOf(again, 'guard')?.status).toBe('enabled');
    expect(marks(marker)).toEqual([]);
    await again.close();
  });
});

/** A trusted project of one TypeScript and one `.mjs` extension, and where its bundles are kept. */
async function trustedPair() {
  const project = tree({
    '.git/HEAD': '',
    '.hermes/extensions/a.ts':
      "import { defineExtension } from 'hermes-extensions';\nexport default defineExtension({ name: 'a', setup() {} });",
    '.hermes/extensions/b.mjs': mjsExtension('b'),
  });
  const home = tree();
  await trustProject(project, home);
  return { project, home, kept: join(home, 'cache', 'bundles') };
}

describe('bundles', () => {
  it('are made when the project is trusted, so its first load needs no bundler', async () => {
    const { project, home, kept } = await trustedPair();
    expect(readdirSync(kept).filter((f) => f.endsWith('.mjs'))).toHaveLength(2);
    const before = readdirSync(kept).map((f) => [f, statSync(join(kept, f)).mtimeMs]);
    const runtime = await load(project, home);
    expect(runtime.extensions.map((e) => [e.name, e.status])).toEqual([
      ['a', 'enabled'],
      ['b', 'enabled'],
    ]);
    expect(readdirSync(kept).map((f) => [f, statSync(join(kept, f)).mtimeMs])).toEqual(before);
    expect(statSync(kept).mode & 0o777).toBe(0o700);
    await runtime.close();
  });

  it('are made again for an extension whose files changed, not for the others', async () => {
    const { project, home, kept } = await trustedPair();
    const bundles = () =>
      readdirSync(kept)
        .filter((f) => f.endsWith('.mjs'))
        .sort();
    const first = bundles();
    write(project, {
      '.hermes/extensions/b.mjs': mjsExtension(
        'b',
        '',
        "hermes.on('intercept_tool_call', () => undefined);",
      ),
    });
    await trustProject(project, home);
    const second = bundles();
    // a's bundle is the same file; b has a new one beside its old one.
    expect(second).toHaveLength(3);
    expect(first.every((f) => second.includes(f))).toBe(true);
    const runtime = await load(project, home);
    expect(runtime.extensions.map((e) => e.status)).toEqual(['enabled', 'enabled']);
    expect(bundles()).toEqual(second);
    await runtime.close();
  });
});
