import { readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sha256 } from '../../src/fs/digest.js';
import { tree, tsExtension, write } from '../support/fixtures.js';
import { built } from '../support/run-bin.js';
import { hermes } from './hermes-cli.js';

const EXT = '.hermes/extensions/local.ts';
const LIB = '.hermes/extensions/lib.ts';
const lib = (value: number) =>
  `export const a = 1;\nexport const b = ${value};\nexport const c = 3;\n`;

/** A project of two files, trusted once. */
async function trustedTwice() {
  const home = tree();
  const project = tree({ '.git/HEAD': '', [EXT]: tsExtension('local'), [LIB]: lib(2) });
  const trust = (...flags: string[]) =>
    hermes(home, 'extensions', 'trust', '--yes', ...flags, '--cwd', project);
  const first = await trust();
  expect(first.code).toBe(0);
  return { home, project, trust, first };
}

const copies = (home: string) => readdirSync(join(home, 'trusted-copies')).sort();

describe.runIf(built)('hermes extensions trust, the second time', () => {
  it('lists every file the first time, then only the edited one, with its diff', async () => {
    const { project, trust, first } = await trustedTwice();
    expect(first.stdout).toContain(
      `(2 file(s)):\n  ${join(project, LIB)}\n  ${join(project, EXT)}`,
    );
    write(project, { [LIB]: lib(20) });
    const second = await trust();
    expect(second.code).toBe(0);
    expect(second.stdout).toContain('Since it was trusted: 1 changed (1 file(s) unchanged');
    const diff = [
      `  changed  ${LIB}`,
      `      --- a/${LIB}`,
      `      +++ b/${LIB}`,
      '      @@ -1,3 +1,3 @@',
      '       export const a = 1;',
      '      -export const b = 2;',
      '      +export const b = 20;',
      '       export const c = 3;',
    ].join('\n');
    expect(second.stdout).toContain(diff);
    // The unchanged file is not listed.
    expect(second.stdout).not.toContain('local.ts');
    const again = await trust();
    expect(again.stdout).toContain('Nothing changed since it was trusted (2 file(s)');
    expect(again.stdout).not.toContain('lib.ts');
  });

  it('names added and removed files, an added one with its content', async () => {
    const { project, trust } = await trustedTwice();
    rmSync(join(project, LIB));
    write(project, { '.hermes/extensions/extra.ts': 'export const extra = true;\n' });
    const run = await trust();
    expect(run.stdout).toContain('Since it was trusted: 1 added, 1 removed');
    expect(run.stdout).toContain(
      '  added    .hermes/extensions/extra.ts\n      --- /dev/null\n      +++ b/.hermes/extensions/extra.ts\n      @@ -0,0 +1,1 @@\n      +export const extra = true;',
    );
    expect(run.stdout).toContain(`  removed  ${LIB}\n`);
  });

  it('names a large or binary file without a diff, saying why', async () => {
    const { project, trust } = await trustedTwice();
    const big = (n: number) => `// ${'x'.repeat(70 * 1024)}\nexport const n = ${n};\n`;
    write(project, { [LIB]: big(1), '.hermes/extensions/logo.png': 'PNG\0a' });
    const many = Array.from({ length: 250 }, (_, i) => `export const v${i} = ${i};\n`).join('');
    write(project, { '.hermes/extensions/many.ts': many });
    const run = await trust();
    // 200 lines of diff at most: 3 of headers, then the first 197 lines of the file.
    expect(run.stdout).toContain(
      '      +export const v196 = 196;\n      … 53 more line(s) of diff',
    );
    expect(run.stdout).not.toContain('v197');
    expect(run.stdout).toContain(`  changed  ${LIB} (71 KiB, more than 64 KiB: no diff)\n`);
    expect(run.stdout).toContain('  added    .hermes/extensions/logo.png (binary: no diff)\n');
    write(project, { [LIB]: big(2), '.hermes/extensions/logo.png': 'PNG\0b' });
    const next = await trust();
    expect(next.stdout).toContain(`  changed  ${LIB} (71 KiB, more than 64 KiB: no diff)\n`);
    expect(next.stdout).toContain('  changed  .hermes/extensions/logo.png (binary: no diff)\n');
    expect(next.stdout).not.toMatch(/^ {6}[-+@]/m);
  });

  it('lists every file with --list, beside what changed', async () => {
    const { project, trust } = await trustedTwice();
    write(project, { [LIB]: lib(5) });
    const run = await trust('--list');
    expect(run.stdout).toContain(`(2 file(s)):\n  ${join(project, LIB)}\n  ${join(project, EXT)}`);
    expect(run.stdout).toContain('      +export const b = 5;');
    expect(run.stdout).not.toContain('--list shows every file');
  });

  it('shows control characters in a diff written out, so a file cannot hide a line', async () => {
    const { project, trust } = await trustedTwice();
    write(project, { [LIB]: `${lib(2)}evil();\u001b[1A\u001b[2K// harmless\u202e\n` });
    const run = await trust();
    expect(run.stdout).toContain('      +evil();\\x1b[1A\\x1b[2K// harmless\\u202e');
    expect(run.stdout).not.toContain('\u001b');
  });
});

describe.runIf(built)('the copies the diff is made against', () => {
  it('keeps one per small text file trusted, the user’s alone, and prunes the rest', async () => {
    const { home, project, trust } = await trustedTwice();
    const digests = (...texts: string[]) => texts.map((t) => sha256(t)).sort();
    expect(copies(home)).toEqual(digests(tsExtension('local'), lib(2)));
    const { statSync } = await import('node:fs');
    expect(statSync(join(home, 'trusted-copies')).mode & 0o777).toBe(0o700);
    for (const name of copies(home)) {
      expect(statSync(join(home, 'trusted-copies', name)).mode & 0o777).toBe(0o600);
    }
    write(project, { [LIB]: lib(7), '.hermes/extensions/logo.png': 'PNG\0' });
    await trust();
    // The trusted lib(2) is no longer referred to; a binary file is not kept.
    expect(copies(home)).toEqual(digests(tsExtension('local'), lib(7)));
    await hermes(home, 'extensions', 'trust', '--revoke', '--cwd', project);
    expect(copies(home)).toEqual([]);
  });

  it('keeps copies of the edit that enable / disable --project trusts, to diff against next', async () => {
    const home = tree({ 'extensions/guard.ts': tsExtension('guard') });
    const project = tree({
      '.git/HEAD': '',
      [EXT]: tsExtension('local'),
      '.hermes/config.yaml': 'extensions:\n  disabled: []\n',
    });
    await hermes(home, 'extensions', 'trust', '--yes', '--cwd', project);
    const toggled = await hermes(home, 'disable', 'guard', '--project', '--cwd', project);
    expect(toggled.stdout).toMatch(/its trust was renewed/);
    writeFileSync(
      join(project, '.hermes/config.yaml'),
      '# mine\nextensions:\n  disabled: [guard]\n',
    );
    const run = await hermes(home, 'extensions', 'trust', '--yes', '--cwd', project);
    expect(run.stdout).toContain('      +# mine\n       extensions:\n         disabled: [guard]');
    expect(run.stdout).not.toContain('disabled: []');
  });
});

describe.runIf(built)('hermes extensions trust with a code config', () => {
  it('diffs the files its paths add once it has run, and names those no longer covered', async () => {
    const home = tree();
    const project = tree({
      '.git/HEAD': '',
      'hermes.config.ts': "export default { extensions: { paths: ['./tools'] } };",
      'tools/guard/index.ts': tsExtension('guard'),
      'tools/guard/old.ts': 'export {};\n',
    });
    const trust = () => hermes(home, 'extensions', 'trust', '--yes', '--cwd', project);
    expect((await trust()).code).toBe(0);
    write(project, { 'tools/guard/index.ts': tsExtension('guard', '// reviewed') });
    rmSync(join(project, 'tools/guard/old.ts'));
    const run = await trust();
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(
      'Nothing changed since it was trusted, of the files found before the config runs (1 file(s)',
    );
    expect(run.stdout).toContain(
      "The config's paths add 1 file(s)\nOf these, since it was trusted: 1 changed.\n  changed  tools/guard/index.ts\n",
    );
    expect(run.stdout).toContain('      +    // reviewed');
    expect(run.stdout).toContain(
      'No longer covered, removed since it was trusted: tools/guard/old.ts\n',
    );
    expect(run.stdout).not.toMatch(/removed +tools\/guard\/index\.ts/);
  });
});
