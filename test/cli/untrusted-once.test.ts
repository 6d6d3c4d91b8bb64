import { describe, expect, it } from 'vitest';
import { tree, tsExtension } from '../support/fixtures.js';
import { built } from '../support/run-bin.js';
import { hermes, hermesWith } from './hermes-cli.js';

/** A project never trusted, with an extension of its own. */
const project = () =>
  tree({ '.git/HEAD': '', '.hermes/extensions/local.ts': tsExtension('local') });

describe.runIf(built)('a project that was never trusted is said so once, with what to run', () => {
  it('in list', async () => {
    const root = project();
    const run = await hermes(tree(), 'extensions', 'list', '--cwd', root);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(
      `Project ${root} is not trusted yet: its extensions and config are ignored.`,
    );
    expect(run.stdout).toContain(`hermes extensions trust --cwd ${root}`);
    expect(run.stdout).not.toMatch(/not trusted \(it has not been trusted\)/);
  });

  it('in doctor, and with HERMES_TRUST_PROJECT=1', async () => {
    const root = project();
    const doctor = await hermes(tree(), 'extensions', 'doctor', '--cwd', root);
    expect(doctor.stdout).toContain(`${root} is not trusted yet: its 1 file(s)`);
    const once = await hermesWith(
      { HERMES_TRUST_PROJECT: '1' },
      tree(),
      'extensions',
      'doctor',
      '--cwd',
      root,
    );
    expect(once.stdout).toContain(
      `${root} is trusted for this run only, by HERMES_TRUST_PROJECT=1 (it is not trusted yet)`,
    );
    for (const run of [doctor, once]) expect(run.stdout).not.toMatch(/it has not been trusted/);
  });
});
