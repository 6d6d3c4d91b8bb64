import { existsSync, readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tree, tsExtension, write } from '../support/fixtures.js';
import { built } from '../support/run-bin.js';
import { hermes } from './hermes-cli.js';

/** A user with a global guard, and a cloned project with an extension and a config of its own. */
async function trustedProject() {
  const home = tree({ 'extensions/guard.ts': tsExtension('guard') });
  const project = tree({
    '.git/HEAD': '',
    '.hermes/extensions/local.ts': tsExtension('local'),
    '.hermes/config.yaml': '# project settings\nextensions:\n  disabled: []\n',
  });
  expect((await hermes(home, 'extensions', 'trust', '--yes', '--cwd', project)).code).toBe(0);
  return { home, project };
}

async function statuses(home: string, project: string) {
  const run = await hermes(home, 'extensions', 'list', '--json', '--cwd', project);
  return Object.fromEntries(
    JSON.parse(run.stdout).map((e: { name: string; status: string }) => [e.name, e.status]),
  );
}

describe.runIf(built)('hermes extensions enable / disable --project and the project trust', () => {
  it('renews the trust when the project was trusted and the toggle is the only change', async () => {
    const { home, project } = await trustedProject();
    const run = await hermes(home, 'disable', 'guard', '--project', '--cwd', project);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/its trust was renewed/);
    expect(await statuses(home, project)).toEqual({ guard: 'disabled', local: 'enabled' });
    const back = await hermes(home, 'enable', 'guard', '--project', '--cwd', project);
    expect(back.stdout).toMatch(/its trust was renewed/);
    expect(await statuses(home, project)).toEqual({ guard: 'enabled', local: 'enabled' });
  });

  it('does not renew it when another trusted file changed too, and says how to trust again', async () => {
    const { home, project } = await trustedProject();
    write(project, { '.hermes/extensions/local.ts': tsExtension('local', '// changed') });
    const run = await hermes(home, 'disable', 'guard', '--project', '--cwd', project);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/changed since it was trusted.*trusted then stay in force/);
    expect(run.stdout).toContain(`hermes extensions trust --cwd ${project}`);
    // The trusted state holds: the guard the edit disables runs, and local as it was trusted.
    expect(await statuses(home, project)).toEqual({ guard: 'enabled', local: 'enabled' });
  });

  it('never blesses a config changed since it was trusted (a guard disabled by a pull)', async () => {
    const { home, project } = await trustedProject();
    // What a pulled commit brings: the user's guard switched off in the project's config.
    write(project, {
      '.hermes/config.yaml': '# project settings\nextensions:\n  disabled: [guard]\n',
    });
    const run = await hermes(home, 'disable', 'local', '--project', '--cwd', project);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/changed since it was trusted.*trusted then stay in force/);
    expect(readFileSync(join(project, '.hermes/config.yaml'), 'utf8')).toMatch(/\[guard, local\]/);
    // The config as trusted holds, so the guard runs, and so does local.
    expect(await statuses(home, project)).toEqual({ guard: 'enabled', local: 'enabled' });
  });

  it('says that a project never trusted ignores the edit until it is trusted', async () => {
    const home = tree({ 'extensions/guard.ts': tsExtension('guard') });
    const project = tree({ '.git/HEAD': '', '.hermes/extensions/local.ts': tsExtension('local') });
    const run = await hermes(home, 'disable', 'guard', '--project', '--cwd', project);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/is not trusted yet, so its config/);
    expect(run.stdout).toContain(`hermes extensions trust --cwd ${project}`);
    expect(existsSync(join(home, 'trusted-projects.json'))).toBe(false);
  });

  it('trusts the config it creates in a project with nothing else to trust', async () => {
    const home = tree({ 'extensions/guard.ts': tsExtension('guard') });
    const project = tree({ '.git/HEAD': '' });
    const run = await hermes(home, 'disable', 'guard', '--project', '--cwd', project);
    expect(run.stdout).toMatch(/its trust was renewed|now trusted/);
    expect(await statuses(home, project)).toEqual({ guard: 'disabled' });
    // Anything the project brings later is not covered: not loaded, the config as trusted holds.
    write(project, { '.hermes/extensions/local.ts': tsExtension('local') });
    expect(await statuses(home, project)).toEqual({ guard: 'disabled' });
  });

  it('refuses when another project config file is the one read', async () => {
    const home = tree({ 'extensions/guard.ts': tsExtension('guard') });
    const project = tree({ '.git/HEAD': '', '.hermesrc.yaml': 'extensions: {}\n' });
    const run = await hermes(home, 'disable', 'guard', '--project', '--cwd', project);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(join(project, '.hermesrc.yaml'));
    expect(existsSync(join(project, '.hermes/config.yaml'))).toBe(false);
  });
});

describe.runIf(built)('hermes extensions enable / disable --project and links', () => {
  it('never writes through a link that leads out of the project', async () => {
    const home = tree({ 'extensions/guard.ts': tsExtension('guard') });
    const outside = tree({ 'precious.yaml': 'mine: true\n' });
    const project = tree({ '.git/HEAD': '', '.hermes/extensions/local.ts': tsExtension('local') });
    symlinkSync(join(outside, 'precious.yaml'), join(project, '.hermes/config.yaml'));
    const run = await hermes(home, 'disable', 'guard', '--project', '--cwd', project);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/is a link that leads outside the project; refused/);
    expect(readFileSync(join(outside, 'precious.yaml'), 'utf8')).toBe('mine: true\n');
    const dangling = tree({ '.git/HEAD': '' });
    symlinkSync(join(outside, 'new'), join(dangling, '.hermes'));
    expect((await hermes(home, 'disable', 'guard', '--project', '--cwd', dangling)).code).toBe(2);
    expect(existsSync(join(outside, 'new'))).toBe(false);
  });
});
