import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tree, tsExtension, write } from '../support/fixtures.js';
import { built, runBin } from '../support/run-bin.js';

function hermes(home: string, ...args: string[]) {
  return runBin(args, { HERMES_HOME: home, HOME: home, CODEX_HOME: '', HERMES_TRUST_PROJECT: '' });
}

describe.runIf(built)('the trust review', () => {
  it('lists every file that will run, imports included, before trusting; list says what changed', async () => {
    const marker = join(tree(), 'ran');
    const project = tree({
      '.git/HEAD': '',
      '.hermes/extensions/ext.ts': tsExtension('ext', '', "import '../../lib/helper';"),
      'lib/helper.ts': `import { writeFileSync } from 'node:fs'; writeFileSync(${JSON.stringify(marker)}, 'x');`,
    });
    const home = tree();
    const refused = await hermes(home, 'extensions', 'trust', '--cwd', project);
    expect(refused.code).toBe(2);
    expect(refused.stdout).toContain(join(project, 'lib/helper.ts'));
    expect(existsSync(marker)).toBe(false);
    expect((await hermes(home, 'extensions', 'trust', '--yes', '--cwd', project)).code).toBe(0);
    write(project, { 'lib/helper.ts': 'export {};' });
    const list = await hermes(home, 'extensions', 'list', '--cwd', project);
    // The extension as trusted is in force (held), and list and doctor name the change.
    expect(list.stdout).toMatch(/ext\s+enabled/);
    expect(list.stdout).toMatch(
      /changed since it was trusted on .*: 1 changed \(lib\/helper\.ts\)\. The config and extensions trusted then are in force \(held\)/,
    );
    const doctor = await hermes(home, 'doctor', '--cwd', project);
    expect(doctor.stdout).toMatch(/1 changed \(lib\/helper\.ts\).*stay in force/);
  });

  it("shows the files a code config's paths add before recording them", async () => {
    const project = tree({
      '.git/HEAD': '',
      'hermes.config.ts': "export default { extensions: { paths: ['./tools'] } };",
      'tools/guard/index.ts': tsExtension('guard'),
    });
    const home = tree();
    const run = await hermes(home, 'extensions', 'trust', '--yes', '--cwd', project);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/The config is code/);
    expect(run.stdout).toMatch(/The config's paths add 1 file\(s\):\n\s+.*tools\/guard\/index\.ts/);
    const list = await hermes(home, 'extensions', 'list', '--cwd', project);
    expect(list.stdout).toMatch(/guard\s+enabled\s+path/);
  });

  it('refuses to trust code that cannot be fingerprinted, saying why', async () => {
    const project = tree({
      '.git/HEAD': '',
      '.hermes/extensions/ext/package.json': '{}',
      '.hermes/extensions/ext/index.ts': tsExtension('ext'),
    });
    const { symlinkSync } = await import('node:fs');
    symlinkSync(tree({ 'x.ts': '' }), join(project, '.hermes/extensions/ext/vendor'));
    const run = await hermes(tree(), 'extensions', 'trust', '--yes', '--cwd', project);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      /cannot be fingerprinted[\s\S]*ext\/vendor leads outside the project/,
    );
  });
});
