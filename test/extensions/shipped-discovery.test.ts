import { join } from 'node:path';
import { loadRuntime } from 'hermes-extensions';
import { memoryLogger } from 'hermes-extensions/testing';
import { describe, expect, it } from 'vitest';
import { discoverPath } from '../../src/extensions/discovery.js';
import { tree, tsExtension } from '../support/fixtures.js';
import { root } from '../support/run-bin.js';

/** `hermes-extensions/<name>` in config `paths` (src/extensions/shipped.ts), in process. */

const SHIPPED_LIST =
  'The shipped ones are: hermes-extensions/audit-log, hermes-extensions/module-router, hermes-extensions/otel, hermes-extensions/secrets-guard, hermes-extensions/workflow-guard.';

describe('discovery of hermes-extensions/<name>', () => {
  it("finds the running framework's own folder, whatever sits beside the config", () => {
    const base = tree({
      'node_modules/hermes-extensions/extensions/workflow-guard/index.ts': tsExtension('fake'),
      'hermes-extensions/workflow-guard/index.ts': tsExtension('fake'),
    });
    const file = join(base, 'config.yaml');
    expect(discoverPath({ spec: 'hermes-extensions/workflow-guard', base, file })).toEqual({
      found: [
        {
          label: 'workflow-guard',
          entry: join(root, 'extensions/workflow-guard/index.ts'),
          location: join(root, 'extensions/workflow-guard'),
          source: 'shipped',
        },
      ],
      problems: [],
    });
    // The folder beside the config is there for the asking, by a path.
    expect(discoverPath({ spec: './hermes-extensions/workflow-guard', base, file }).found).toEqual([
      expect.objectContaining({
        source: 'path',
        location: join(base, 'hermes-extensions/workflow-guard'),
      }),
    ]);
  });

  it('refuses the bare package, a name out of the folder and an unknown name, listing the shipped ones', () => {
    const base = tree({ 'hermes-extensions/guard/index.ts': tsExtension('guard') });
    const file = join(base, 'config.yaml');
    const problem = (spec: string) => {
      const { found, problems } = discoverPath({ spec, base, file });
      expect(found).toEqual([]);
      expect(problems.map((p) => p.code)).toEqual(['PATH_NOT_FOUND']);
      return problems[0]?.message;
    };
    expect(problem('hermes-extensions')).toBe(
      `extensions.paths entry "hermes-extensions" in ${file} names the framework itself, not an extension. ${SHIPPED_LIST} To name ${join(base, 'hermes-extensions')} instead, write "./hermes-extensions".`,
    );
    expect(problem('hermes-extensions/../extensions/workflow-guard')).toContain(SHIPPED_LIST);
    expect(problem('hermes-extensions/audit-logs')).toBe(
      `extensions.paths entry "hermes-extensions/audit-logs" in ${file} names no extension shipped with hermes-extensions; did you mean "hermes-extensions/audit-log"? ${SHIPPED_LIST}`,
    );
    expect(problem('hermes-extensions/guard')).toBe(
      `extensions.paths entry "hermes-extensions/guard" in ${file} names no extension shipped with hermes-extensions. ${SHIPPED_LIST} To name ${join(base, 'hermes-extensions/guard')} instead, write "./hermes-extensions/guard".`,
    );
  });

  it('loads a shipped guard named in the global config, with its settings', async () => {
    const home = tree({
      'config.yaml': [
        'extensions:',
        '  paths: [hermes-extensions/workflow-guard]',
        '  workflow-guard:',
        '    sandbox: "off"',
        '',
      ].join('\n'),
    });
    const project = tree({ '.git/HEAD': '', 'src/app.ts': '' });
    const runtime = await loadRuntime({ home, cwd: project, logger: memoryLogger() });
    expect(runtime.extensions).toMatchObject([
      { name: 'workflow-guard', source: 'shipped', status: 'enabled' },
    ]);
    const outcome = await runtime.runTurn({ sessionId: 's' }, (turn) =>
      turn.interceptToolCall({ toolName: 'write', toolArgs: { path: 'src/app.ts' } }),
    );
    await runtime.close();
    expect(outcome).toMatchObject({ blocked: true, blockedBy: 'workflow-guard' });
  });
});
