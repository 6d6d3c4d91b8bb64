import { describe, expect, it } from 'vitest';
import { tree, tsExtension } from '../support/fixtures.js';
import { built } from '../support/run-bin.js';
import { hermes } from './hermes-cli.js';

/** A guard of `bash` whose config section fails its schema, so it does not load. */
const strictGuard = `import { block, defineExtension } from 'hermes-extensions';
import { z } from 'zod';
export default defineExtension({
  name: 'shell-guard',
  configSchema: z.object({ level: z.number() }),
  setup(hermes) {
    hermes.on('intercept_tool_call', () => block('no shell'), { tools: ['bash'] });
  },
});
`;
const rmRf = '{"toolName":"bash","toolArgs":{"command":"rm -rf /"}}';

describe.runIf(built)('hermes extensions test names the extensions that took no part', () => {
  it('names an enabled extension that failed to load, with its reason, and exits 1 though the call passed', async () => {
    const home = tree({
      'config.yaml': 'extensions:\n  on_load_error: warn\n  shell-guard:\n    level: high\n',
      'extensions/shell-guard.ts': strictGuard,
    });
    const run = await hermes(
      home,
      'extensions',
      'test',
      'intercept_tool_call',
      '--input',
      rmRf,
      '--cwd',
      tree(),
    );
    expect(run.stdout).toMatch(/PASSED/);
    expect(run.stdout).toMatch(
      /Not running: shell-guard \(error, .*shell-guard\.ts\): config for "shell-guard" in .*config\.yaml does not match its configSchema/,
    );
    expect(run.code).toBe(1);
    const json = await hermes(
      home,
      'extensions',
      'test',
      'intercept_tool_call',
      '--json',
      '--input',
      rmRf,
      '--cwd',
      tree(),
    );
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout).notRunning).toEqual([
      expect.objectContaining({ name: 'shell-guard', status: 'error', code: 'CONFIG_SCHEMA' }),
    ]);
  });

  it('names it on every hook, also where the load-failure guard does not refuse', async () => {
    const home = tree({
      'config.yaml': 'extensions:\n  shell-guard:\n    level: high\n',
      'extensions/shell-guard.ts': strictGuard,
    });
    const run = await hermes(
      home,
      'extensions',
      'test',
      'transform_user_input',
      '--input',
      '"hi"',
      '--cwd',
      tree(),
    );
    expect(run.stdout).toMatch(/Not running: shell-guard \(error/);
    expect(run.code).toBe(1);
  });

  it('names untrusted and disabled extensions, which do not change the exit code', async () => {
    const project = tree({ '.git/HEAD': '', '.hermes/extensions/local.ts': tsExtension('local') });
    const home = tree({
      'config.yaml': 'extensions:\n  disabled: [off]\n',
      'extensions/off.ts': tsExtension('off'),
    });
    const run = await hermes(
      home,
      'extensions',
      'test',
      'intercept_tool_call',
      '--input',
      rmRf,
      '--cwd',
      project,
    );
    expect(run.stdout).toMatch(
      /Not running: local \(untrusted, .*local\.ts\): project .* is not trusted/,
    );
    expect(run.stdout).toContain(`hermes extensions trust --cwd ${project}`);
    expect(run.stdout).toMatch(/Not running: off \(disabled, .*off\.ts\)/);
    expect(run.code).toBe(0);
  });
});
