import { cpSync, readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { shippedNames } from '../../src/extensions/shipped.js';
import { tree } from '../support/fixtures.js';
import { built, root, runProcess } from '../support/run-bin.js';

/**
 * `hermes-extensions/<name>` in code: the package's `exports` entry of each shipped extension, the
 * same name config `paths` takes (src/extensions/shipped.ts).
 */

const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  exports: Record<string, unknown>;
  files: string[];
};

describe('the shipped extensions by name, in code', () => {
  it('has an exports entry for each shipped extension, and for nothing else of theirs', () => {
    const entries = Object.keys(manifest.exports)
      .filter((key) => String(JSON.stringify(manifest.exports[key])).includes('dist/shipped/'))
      .map((key) => key.slice(2));
    expect(entries).toEqual(shippedNames());
    expect(shippedNames()).toEqual([
      'audit-log',
      'module-router',
      'otel',
      'secrets-guard',
      'workflow-guard',
    ]);
  });

  it.runIf(built)(
    'imports as `hermes-extensions/<name>` from an installed copy, with plain Node, and blocks (the guard tester too)',
    async () => {
      const project = tree({
        'package.json': '{ "name": "app", "type": "module" }',
        'src/app.ts': 'x\n',
        'app.mjs': `import { createRuntime } from 'hermes-extensions';
import auditLog from 'hermes-extensions/audit-log';
import moduleRouter from 'hermes-extensions/module-router';
import otel from 'hermes-extensions/otel';
import secretsGuard from 'hermes-extensions/secrets-guard';
import { runGuardCases } from 'hermes-extensions/testing';
import workflowGuard from 'hermes-extensions/workflow-guard';

const runtime = await createRuntime({
  extensions: [workflowGuard],
  config: { extensions: { 'workflow-guard': { sandbox: 'off' } } },
});
const outcome = await runtime.runTurn({ sessionId: 's' }, (turn) =>
  turn.interceptToolCall({ toolName: 'write', toolArgs: { path: 'src/app.ts', content: 'y' } }),
);
await runtime.close();
// The guard tester's plain function, with no test runner at all.
const results = await runGuardCases(workflowGuard, {
  config: { sandbox: 'off' },
  intercept_tool_call: {
    block: [{ tool: 'write', args: { path: 'src/app.ts' }, message: 'plan' }],
    pass: [{ tool: 'write', args: { path: 'src/app.ts' } }],
  },
});
console.log(JSON.stringify({
  tester: results.map((r) => [r.name, r.ok]),
  names: [auditLog, moduleRouter, otel, secretsGuard, workflowGuard].map((ext) => ext.name),
  status: runtime.extensions.map((ext) => ext.status),
  blocked: outcome.blocked,
  blockedBy: outcome.blockedBy,
}));
`,
      });
      // The built package as npm installs it in the project; its dependencies are the checkout's.
      const installed = join(project, 'node_modules/hermes-extensions');
      for (const entry of ['package.json', 'dist', 'loader', 'extensions']) {
        cpSync(join(root, entry), join(installed, entry), { recursive: true });
      }
      symlinkSync(join(root, 'node_modules'), join(installed, 'node_modules'));

      const run = await runProcess(process.execPath, [join(project, 'app.mjs')], { cwd: project });
      expect(run.stderr).toBe('');
      expect(JSON.parse(run.stdout)).toEqual({
        names: ['audit-log', 'module-router', 'otel', 'secrets-guard', 'workflow-guard'],
        status: ['enabled'],
        blocked: true,
        blockedBy: 'workflow-guard',
        tester: [
          // Cases run per hook in the order pass, rewrite, block, ask.
          ['intercept_tool_call › pass › write {"path":"src/app.ts"}', false],
          ['intercept_tool_call › block › write {"path":"src/app.ts"}', true],
        ],
      });
    },
  );
});
