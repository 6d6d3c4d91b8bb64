import { existsSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { inspectProjectTrust, loadRuntime, trustProject } from 'hermes-extensions';
import { memoryLogger } from 'hermes-extensions/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { tree, tsExtension, write } from '../support/fixtures.js';

/**
 * Each test is a hostile repository: trusted as it was, then changed the way an attacker would
 * (a pull, a branch switch) so that new code would run. The new code writes a marker file; the
 * test loads the project and checks the marker is not there.
 */

const quiet = { logger: memoryLogger() };

afterEach(() => {
  delete process.env.HERMES_TRUST_PROJECT;
});

/** Code that leaves a marker when it runs (at import). */
function payload(marker: string): string {
  return `import { writeFileSync as __w } from 'node:fs'; __w(${JSON.stringify(marker)}, 'ran');\n`;
}

function markerFile(): string {
  return join(tree(), 'ran');
}

async function load(project: string, home: string) {
  return loadRuntime({ home, cwd: project, ...quiet });
}

function statusOf(runtime: Awaited<ReturnType<typeof load>>, name: string) {
  return runtime.extensions.find((e) => e.name === name);
}

/** The notice of a trusted project that changed since: the trusted state holds (held-state.ts). */
function heldNotice(runtime: Awaited<ReturnType<typeof load>>) {
  return runtime.diagnostics.find((d) => d.code === 'TRUST_HELD');
}

describe('trust covers every file that loading reads', () => {
  it("covers an extension's package.json whole, not only its hermes key", async () => {
    const marker = markerFile();
    const project = tree({
      '.git/HEAD': '',
      '.hermes/extensions/ext/package.json': JSON.stringify({ main: 'index.ts' }),
      '.hermes/extensions/ext/index.ts': tsExtension('ext'),
      '.hermes/extensions/ext/other.ts': payload(marker) + tsExtension('ext'),
    });
    const home = tree();
    await trustProject(project, home);
    write(project, {
      '.hermes/extensions/ext/package.json': JSON.stringify({ main: 'other.ts' }),
    });
    const runtime = await load(project, home);
    expect(existsSync(marker)).toBe(false);
    // The extension as trusted (its entry index.ts) runs, not the one the new manifest names.
    expect(statusOf(runtime, 'ext')?.status).toBe('enabled');
    expect(heldNotice(runtime)?.severity).toBe('warning');
    expect(inspectProjectTrust({ cwd: project, home }).changes?.changed).toEqual([
      '.hermes/extensions/ext/package.json',
    ]);
  });

  it('refuses a package.json entry outside the extension folder, for a trusted project too', async () => {
    const marker = markerFile();
    const project = tree({
      '.git/HEAD': '',
      '.hermes/extensions/ext/package.json': JSON.stringify({ main: '../../../src/evil.ts' }),
      'src/evil.ts': payload(marker) + tsExtension('ext'),
    });
    const home = tree();
    await trustProject(project, home);
    const runtime = await load(project, home);
    expect(existsSync(marker)).toBe(false);
    expect(runtime.extensions).toEqual([]);
    const refusal = runtime.diagnostics.find((d) =>
      /outside the extension's folder/.test(d.message),
    );
    expect(refusal?.message).toContain('package.json entry "../../../src/evil.ts"');
    expect(refusal?.file).toBe(join(project, '.hermes/extensions/ext/package.json'));
  });

  it('refuses an entry outside the folder of a global extension too, and an index that links out', async () => {
    const marker = markerFile();
    const elsewhere = tree({
      'evil.mjs': `${payload(marker)}export default { name: 'g', setup() {} };`,
    });
    const home = tree({
      'extensions/g/package.json': JSON.stringify({ exports: '../../../evil.mjs' }),
    });
    write(home, {
      'extensions/g/package.json': JSON.stringify({ exports: join(elsewhere, 'evil.mjs') }),
    });
    mkdirSync(join(home, 'extensions/linked'));
    symlinkSync(join(elsewhere, 'evil.mjs'), join(home, 'extensions/linked/index.mjs'));
    const runtime = await load(tree(), home);
    expect(existsSync(marker)).toBe(false);
    expect(runtime.extensions).toEqual([]);
    expect(
      runtime.diagnostics.filter((d) => /outside the extension's folder/.test(d.message)),
    ).toHaveLength(2);
  });

  it('covers project files an extension imports, outside .hermes: a change to one is held', async () => {
    const marker = markerFile();
    const project = tree({
      '.git/HEAD': '',
      '.hermes/extensions/ext.ts': tsExtension(
        'ext',
        '',
        "import { helper } from '../../lib/helper';\nexport const uses = helper;",
      ),
      'lib/helper.ts': 'export const helper = 1;',
    });
    const home = tree();
    const trust = await trustProject(project, home);
    expect(trust.files).toContain(join(project, 'lib/helper.ts'));
    expect(statusOf(await load(project, home), 'ext')?.status).toBe('enabled');
    write(project, { 'lib/helper.ts': `${payload(marker)}export const helper = 2;` });
    const runtime = await load(project, home);
    expect(existsSync(marker)).toBe(false);
    expect(statusOf(runtime, 'ext')?.status).toBe('enabled');
    expect(heldNotice(runtime)?.message).toMatch(/1 changed \(lib\/helper\.ts\)/);
  });

  it('refuses a file imported by a name computed at run time that was not trusted', async () => {
    const marker = markerFile();
    const project = tree({
      '.git/HEAD': '',
      '.hermes/extensions/ext.ts': tsExtension(
        'ext',
        '',
        "const which = ['pl', 'ugin'].join('');\nawait import('../../lib/' + which + '.ts');",
      ),
    });
    const home = tree();
    await trustProject(project, home);
    // Added after trust, in a folder nothing covers statically.
    write(project, { 'lib/plugin.ts': payload(marker) });
    expect(inspectProjectTrust({ cwd: project, home }).state).toBe('trusted');
    const runtime = await load(project, home);
    expect(existsSync(marker)).toBe(false);
    expect(statusOf(runtime, 'ext')).toMatchObject({ status: 'error' });
    expect(statusOf(runtime, 'ext')?.reason).toMatch(
      /imports "\.\.\/\.\.\/lib\/plugin\.ts" by a name computed when it runs; project code loads only what was bundled from the files trusted with the project/,
    );
  });

  it('refuses a project file read by trusted code at load time that was not trusted', async () => {
    const marker = markerFile();
    const project = tree({
      '.git/HEAD': '',
      '.hermes/extensions/ext.ts': tsExtension(
        'ext',
        '',
        "import * as fs from 'node:fs';\nconst code = fs.readFileSync(new URL('../../tools/run.js', import.meta.url), 'utf8');\nnew Function('fs', code)(fs);",
      ),
      'tools/run.js': '',
    });
    const home = tree();
    await trustProject(project, home);
    write(project, {
      'tools/run.js': `fs.writeFileSync(${JSON.stringify(marker)}, 'x')`,
    });
    const runtime = await load(project, home);
    expect(existsSync(marker)).toBe(false);
    expect(statusOf(runtime, 'ext')).toMatchObject({ status: 'error' });
    expect(statusOf(runtime, 'ext')?.reason).toMatch(/reads tools\/run\.js, which is not part/);
  });

  it('covers .cache, .git and node_modules inside .hermes/extensions, and what extensions import from .hermes', async () => {
    const marker = markerFile();
    const project = tree({
      '.git/HEAD': '',
      '.hermes/extensions/ext/index.ts': tsExtension(
        'ext',
        '',
        "import './.cache/a';\nimport './.git/b';\nimport './node_modules/c/index.js';\nimport '../../.cache/d';",
      ),
      '.hermes/extensions/ext/.cache/a.ts': '',
      '.hermes/extensions/ext/.git/b.ts': '',
      '.hermes/extensions/ext/node_modules/c/index.js': '',
      '.hermes/.cache/d.ts': '',
    });
    const home = tree();
    const trust = await trustProject(project, home);
    expect(trust.records.map((r) => r.path)).toEqual(
      expect.arrayContaining(['.hermes/extensions/ext/.cache/a.ts', '.hermes/.cache/d.ts']),
    );
    for (const file of [
      '.hermes/extensions/ext/.cache/a.ts',
      '.hermes/extensions/ext/.git/b.ts',
      '.hermes/extensions/ext/node_modules/c/index.js',
      '.hermes/.cache/d.ts',
    ]) {
      await trustProject(project, home);
      expect(statusOf(await load(project, home), 'ext')?.status).toBe('enabled');
      write(project, { [file]: payload(marker) });
      const runtime = await load(project, home);
      expect(existsSync(marker), file).toBe(false);
      expect(heldNotice(runtime)?.message, file).toContain(file);
      write(project, { [file]: '' });
    }
  });

  it('refuses $import in project config of any format: nothing it names is read or run', async () => {
    const marker = markerFile();
    const configs: Array<Record<string, string>> = [
      { '.hermesrc.json': JSON.stringify({ $import: './evil.mjs', extensions: {} }) },
      { '.hermes/config.yaml': '$import: ../evil.mjs\n' },
      { 'package.json': JSON.stringify({ name: 'p', hermes: { $import: ['./evil.mjs'] } }) },
    ];
    for (const config of configs) {
      const project = tree({
        '.git/HEAD': '',
        ...config,
        'evil.mjs': `${payload(marker)}export default {};`,
        '.hermes/evil.mjs': `${payload(marker)}export default {};`,
      });
      const home = tree();
      const file = join(project, Object.keys(config)[0] as string);
      await expect(trustProject(project, home)).rejects.toThrow(/\$import/);
      await expect(loadRuntime({ home, cwd: project, trust: true, ...quiet })).rejects.toThrow(
        new RegExp(`${file}.*"\\$import" is not allowed in project config`, 's'),
      );
      expect(existsSync(marker)).toBe(false);
    }
  });

  it('refuses project config paths outside the project, and a global_dir', async () => {
    const marker = markerFile();
    const outside = tree({
      'ext/index.mjs': `${payload(marker)}export default { name: 'out', setup() {} };`,
    });
    const project = tree({
      '.git/HEAD': '',
      '.hermesrc.json': JSON.stringify({
        extensions: { paths: [join(outside, 'ext')], global_dir: join(outside) },
      }),
    });
    const home = tree();
    await trustProject(project, home);
    const runtime = await load(project, home);
    expect(existsSync(marker)).toBe(false);
    expect(runtime.extensions).toEqual([]);
    const refused = runtime.diagnostics.find((d) => /is outside the project/.test(d.message));
    expect(refused).toMatchObject({ severity: 'error', file: join(project, '.hermesrc.json') });
    expect(refused?.message).toContain(`"${join(outside, 'ext')}"`);
    expect(runtime.diagnostics.some((d) => /global_dir .* is ignored/.test(d.message))).toBe(true);
  });

  it('fingerprints each file apart: moving bytes from one file into a new one is a change', async () => {
    // One stream of (name, \0, content, \0) would read the same for both layouts.
    const marker = markerFile();
    const first = tsExtension('a');
    const second = payload(marker) + tsExtension('b');
    const project = tree({
      '.git/HEAD': '',
      '.hermes/extensions/a.ts': `${first}//\0.hermes/extensions/b.ts\0${second}`,
    });
    const home = tree();
    await trustProject(project, home);
    write(project, { '.hermes/extensions/a.ts': `${first}//`, '.hermes/extensions/b.ts': second });
    const runtime = await load(project, home);
    expect(existsSync(marker)).toBe(false);
    // Added since it was trusted: not loaded while the trusted state holds.
    expect(statusOf(runtime, 'b')).toBeUndefined();
    expect(heldNotice(runtime)?.message).toMatch(/1 added \(\.hermes\/extensions\/b\.ts\)/);
  });

  it('cannot fingerprint, and so does not run, code behind a link that leads out of the project', async () => {
    const marker = markerFile();
    const outside = tree({ 'evil.ts': payload(marker) + tsExtension('evil') });
    const project = tree({ '.git/HEAD': '', '.hermes/extensions/ok.ts': tsExtension('ok') });
    const home = tree();
    await trustProject(project, home);
    symlinkSync(join(outside, 'evil.ts'), join(project, '.hermes/extensions/evil.ts'));
    const runtime = await loadRuntime({ home, cwd: project, ...quiet });
    expect(existsSync(marker)).toBe(false);
    // The project was trusted: its trusted extension holds, the link is not followed.
    expect(runtime.extensions.map((e) => [e.name, e.status])).toEqual([['ok', 'enabled']]);
    expect(heldNotice(runtime)?.message).toMatch(
      /cannot be fingerprinted[\s\S]*\.hermes\/extensions\/evil\.ts leads outside the project/,
    );
    await expect(trustProject(project, home)).rejects.toThrow(/leads outside the project/);
  });

  it('cannot fingerprint more files than can be reviewed', async () => {
    const files: Record<string, string> = {
      '.git/HEAD': '',
      '.hermes/extensions/a.ts': tsExtension('a'),
    };
    for (let i = 0; i <= 2000; i++) files[`.hermes/extensions/a/node_modules/x/f${i}.js`] = '';
    const project = tree(files);
    const trust = inspectProjectTrust({ cwd: project, home: tree() });
    expect(trust.state).toBe('unreadable');
    expect(trust.problems[0]).toMatch(/more than 2000 files/);
  });

  it('covers the modules a code config imports', async () => {
    const marker = markerFile();
    const project = tree({
      '.git/HEAD': '',
      'hermes.config.ts': "import { settings } from './config/settings';\nexport default settings;",
      'config/settings.ts': 'export const settings = { extensions: {} };',
    });
    const home = tree();
    const trust = await trustProject(project, home);
    expect(trust.files).toContain(join(project, 'config/settings.ts'));
    write(project, {
      'config/settings.ts': `${payload(marker)}export const settings = { extensions: { enabled: false } };`,
    });
    const runtime = await load(project, home);
    expect(existsSync(marker)).toBe(false);
    expect(runtime.diagnostics[0]?.message).toMatch(/config\/settings\.ts/);
  });

  it('covers a package.json config whole: any change to the file untrusts', async () => {
    const project = tree({
      '.git/HEAD': '',
      'package.json': JSON.stringify({ name: 'p', hermes: { extensions: {} } }),
    });
    const home = tree();
    await trustProject(project, home);
    write(project, {
      'package.json': JSON.stringify({ name: 'p', main: 'x.js', hermes: { extensions: {} } }),
    });
    expect(inspectProjectTrust({ cwd: project, home }).state).toBe('changed');
  });

  it('asks again for projects trusted by the older, single-fingerprint version', async () => {
    const project = tree({ '.git/HEAD': '', '.hermes/extensions/a.ts': tsExtension('a') });
    const home = tree({
      'trusted-projects.json': JSON.stringify({
        version: 1,
        projects: { [project]: { fingerprint: 'f', paths: [], trustedAt: '2025-01-01' } },
      }),
    });
    const trust = inspectProjectTrust({ cwd: project, home });
    expect(trust).toMatchObject({ trusted: false, state: 'changed', trustedAt: '2025-01-01' });
    const runtime = await load(project, home);
    expect(runtime.diagnostics[0]?.message).toMatch(/older version/);
    await trustProject(project, home);
    expect(inspectProjectTrust({ cwd: project, home }).state).toBe('trusted');
  });
});

describe('what keeps working', () => {
  it('stays trusted while extensions write their own files under .hermes (the audit log)', async () => {
    const project = tree({ '.git/HEAD': '', '.hermes/extensions/a.ts': tsExtension('a') });
    const home = tree();
    await trustProject(project, home);
    mkdirSync(join(project, '.hermes/audit'));
    writeFileSync(join(project, '.hermes/audit/audit.jsonl'), '{"event":1}\n');
    expect(inspectProjectTrust({ cwd: project, home }).state).toBe('trusted');
  });

  it('loads a trusted .js extension through the guard, with the package.json that sets its type', async () => {
    const project = tree({
      '.git/HEAD': '',
      'package.json': JSON.stringify({ name: 'p', type: 'module' }),
      '.hermes/extensions/plain.js': `import { helper } from '../../lib/helper.js';\nexport default { name: 'plain', setup() { helper(); } };`,
      'lib/helper.js': 'export function helper() {}',
    });
    const home = tree();
    const trust = await trustProject(project, home);
    expect(trust.records.map((r) => r.path)).toEqual([
      '.hermes/extensions/plain.js',
      'lib/helper.js',
      'package.json',
    ]);
    expect(statusOf(await load(project, home), 'plain')?.status).toBe('enabled');
  });

  it('loads project code imported through a link that stays inside the project', async () => {
    const project = tree({ '.git/HEAD': '', 'shared/ext.ts': tsExtension('shared') });
    mkdirSync(join(project, '.hermes/extensions'), { recursive: true });
    symlinkSync(join(project, 'shared/ext.ts'), join(project, '.hermes/extensions/shared.ts'));
    const home = tree();
    await trustProject(project, home);
    expect(statusOf(await load(project, home), 'shared')?.status).toBe('enabled');
  });

  it('runs everything for one run with HERMES_TRUST_PROJECT=1, imports outside .hermes included', async () => {
    const marker = markerFile();
    const project = tree({
      '.git/HEAD': '',
      '.hermes/extensions/ext.ts': tsExtension('ext', '', "import '../../lib/late.ts';"),
      'lib/late.ts': payload(marker),
    });
    const home = tree();
    process.env.HERMES_TRUST_PROJECT = '1';
    const runtime = await load(project, home);
    expect(statusOf(runtime, 'ext')?.reason).toBeUndefined();
    expect(statusOf(runtime, 'ext')?.status).toBe('enabled');
    expect(existsSync(marker)).toBe(true);
  });
});
