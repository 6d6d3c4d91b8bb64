import { describe, expect, it } from 'vitest';
import { tree, tsExtension } from '../support/fixtures.js';
import { built } from '../support/run-bin.js';
import { hermes, hermesWith } from './hermes-cli.js';

const lastLine = (text: string) => text.trim().split('\n').at(-1);

describe.runIf(built)('hermes extensions doctor: the summary and the exit code agree', () => {
  it('counts warnings as warnings, with exit 0', async () => {
    const project = tree({ '.git/HEAD': '', '.hermes/extensions/local.ts': tsExtension('local') });
    const run = await hermes(tree(), 'extensions', 'doctor', '--cwd', project);
    expect(run.stdout).toMatch(/! project trust: .* is not trusted yet/);
    expect(lastLine(run.stdout)).toBe('2 warning(s) found.');
    expect(run.code).toBe(0);
    const json = JSON.parse(
      (await hermes(tree(), 'extensions', 'doctor', '--json', '--cwd', project)).stdout,
    );
    expect(json).toMatchObject({ errors: 0, warnings: 2 });
  });

  it('counts errors as problems, with exit 1, and names the warnings beside them', async () => {
    const project = tree({ '.git/HEAD': '', '.hermes/extensions/local.ts': tsExtension('local') });
    const home = tree({ 'extensions/broken.ts': 'export default {' });
    const run = await hermes(home, 'extensions', 'doctor', '--cwd', project);
    expect(lastLine(run.stdout)).toBe('1 problem(s) found, and 2 warning(s).');
    expect(run.code).toBe(1);
  });

  it('notes two scaffolds sharing the default priority, which is no problem', async () => {
    const home = tree();
    expect((await hermes(home, 'extensions', 'init', 'first-guard')).code).toBe(0);
    expect((await hermes(home, 'extensions', 'init', 'second-guard')).code).toBe(0);
    const run = await hermes(home, 'extensions', 'doctor', '--cwd', tree());
    expect(run.stdout).toMatch(
      /i intercept_tool_call priority 100: first-guard, second-guard share it, so load order decides/,
    );
    expect(run.stdout).not.toMatch(/^!/m);
    expect(lastLine(run.stdout)).toBe('All 2 extensions look healthy.');
    expect(run.code).toBe(0);
    const json = JSON.parse(
      (await hermes(home, 'extensions', 'doctor', '--json', '--cwd', tree())).stdout,
    );
    expect(json).toMatchObject({ errors: 0, warnings: 0 });
    expect(json.checks).toContainEqual(
      expect.objectContaining({ level: 'info', subject: 'intercept_tool_call priority 100' }),
    );
  });

  it('with HERMES_TRUST_PROJECT=1, says the project is trusted for this run only, not ignored', async () => {
    const project = tree({ '.git/HEAD': '', '.hermes/extensions/local.ts': tsExtension('local') });
    const run = await hermesWith(
      { HERMES_TRUST_PROJECT: '1' },
      tree(),
      'extensions',
      'doctor',
      '--cwd',
      project,
    );
    expect(run.stdout).toMatch(/✓ local \(project, .*\): loaded/);
    expect(run.stdout).not.toMatch(/ignored|not loaded/);
    expect(run.stdout).toMatch(
      /! project trust: .* is trusted for this run only, by HERMES_TRUST_PROJECT=1 \(it is not trusted yet\)/,
    );
    expect(run.stdout).toContain(
      `fix: review them, then: hermes extensions trust --cwd ${project}`,
    );
  });
});
