import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tree } from '../support/fixtures.js';
import { built } from '../support/run-bin.js';
import { sandbox } from '../support/sandbox.js';
import { hermes, hermesWith } from './hermes-cli.js';

type Check = { level: string; subject: string; message: string; fix?: string };

async function sandboxCheck(env: Record<string, string>, home: string): Promise<Check | undefined> {
  const run = await hermesWith(env, home, 'extensions', 'doctor', '--json', '--cwd', tree());
  const { checks } = JSON.parse(run.stdout) as { checks: Check[] };
  return checks.find((check) => check.subject === 'sandbox');
}

const guardHome = () =>
  tree({
    'config.yaml': `extensions:\n  paths: [hermes-extensions/workflow-guard]\n`,
  });

describe.runIf(built)('hermes extensions doctor: the OS sandbox', () => {
  it.runIf(sandbox.available)('runs a sandboxed command and says the sandbox holds', async () => {
    const run = await hermes(tree(), 'extensions', 'doctor', '--cwd', tree());
    expect(run.stdout).toMatch(
      /✓ sandbox: the OS sandbox works here: a sandboxed command could not write outside its writable folders and could write inside them \(\d+ ms\)/,
    );
  });

  it('says why it cannot run and how to fix it: a warning when workflow-guard would use it', async () => {
    // A PATH without bubblewrap, socat or ripgrep.
    const env = { PATH: mkdtempSync(join(tmpdir(), 'hermes-empty-path-')) };
    expect(await sandboxCheck(env, tree())).toMatchObject({
      level: 'info',
      message: expect.stringMatching(/cannot run in the OS sandbox here: .*not installed/),
      fix: expect.stringContaining('apt-get install bubblewrap socat ripgrep'),
    });
    expect(await sandboxCheck(env, guardHome())).toMatchObject({
      level: 'warning',
      message: expect.stringContaining(
        'workflow-guard refuses the commands it cannot read instead',
      ),
    });
  });
});
