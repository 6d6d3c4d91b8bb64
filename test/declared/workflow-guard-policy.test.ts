import { readFileSync } from 'node:fs';
import { createRuntime, loadRuntime } from 'hermes-extensions';
import { memoryLogger } from 'hermes-extensions/testing';
import { describe, expect, it } from 'vitest';
import workflowGuard from '../../extensions/workflow-guard/index.js';
import { tree } from '../support/fixtures.js';

/**
 * examples/policies/workflow-guard/: workflow-guard's rule for writers before a plan, as a Cedar
 * policy, decides each call of this table as workflow-guard itself does (docs/policies.md,
 * workflow-guard's rule as a policy). The table is of names: links and absolute names into the
 * project are workflow-guard's alone (it looks at the disk; a Cedar request carries names).
 */
const CEDAR = readFileSync(
  new URL('../../examples/policies/workflow-guard/workflow-guard.cedar', import.meta.url),
  'utf8',
);

const BLOCK = 'block';
const PASS = 'pass';
const TABLE: Array<[string, Record<string, unknown>, typeof BLOCK | typeof PASS]> = [
  ['write', { path: 'src/app.ts', content: 'x' }, BLOCK],
  ['write', { path: 'plans/../src/app.ts' }, BLOCK],
  ['edit', { path: 'plans/a/b/../../../src/app.ts' }, BLOCK],
  ['write', { path: './plans/./../src/app.ts' }, BLOCK],
  ['write', { path: '/etc/hosts' }, BLOCK],
  ['write', { path: '~/.bashrc' }, BLOCK],
  ['write', { path: 'plansX/readme.md' }, BLOCK],
  ['write', { path: 'plans.md' }, BLOCK],
  ['edit', { file_path: 'src/app.ts', old_string: 'a', new_string: 'b' }, BLOCK],
  ['edit', { filePath: 'src/app.ts' }, BLOCK],
  ['write', { filename: 'src/new.ts' }, BLOCK],
  ['write', { target: 'src/new.ts' }, BLOCK],
  ['write', { paths: ['plans/a.md', 'src/b.ts'] }, BLOCK],
  ['edit', { edits: [{ file_path: 'plans/a.md' }, { file_path: 'src/app.ts' }] }, BLOCK],
  ['write', { path: 'plans/a.md', destination: 'src/app.ts' }, BLOCK],
  ['write', { content: 'x' }, BLOCK],
  ['edit', {}, BLOCK],
  ['write', { path: 42 }, BLOCK],
  ['write', { path: 'plans/%2e%2e/src/app.ts' }, BLOCK],
  [
    'patch',
    { patch: '*** Begin Patch\n*** Update File: src/app.ts\n@@\n-a\n+b\n*** End Patch' },
    BLOCK,
  ],
  [
    'patch',
    {
      patch:
        '*** Begin Patch\n*** Add File: plans/p.md\n+x\n*** Add File: src/evil.ts\n+y\n*** End Patch',
    },
    BLOCK,
  ],
  [
    'patch',
    { patch: '*** Begin Patch\n*** Update File: plans/p.md\n*** Move to: src/p.ts\n*** End Patch' },
    BLOCK,
  ],
  ['patch', { diff: '--- a/src/app.ts\n+++ b/src/app.ts\n@@ -1 +1 @@\n-a\n+b\n' }, BLOCK],
  ['Write', { file_path: 'src/app.ts', content: 'x' }, BLOCK],
  ['write', { path: 'plans/a.md', content: 'src/app.ts is next' }, PASS],
  ['write', { path: 'handoff/notes.md', content: 'x' }, PASS],
  ['edit', { file_path: 'plans/p.md', old_string: 'a', new_string: 'b' }, PASS],
  ['patch', { patch: '*** Begin Patch\n*** Add File: plans/p.md\n+x\n*** End Patch' }, PASS],
  ['Write', { file_path: 'plans/x.md', content: 'x' }, PASS],
  ['read', { path: 'src/app.ts' }, PASS],
  ['grep', { pattern: 'app', path: 'src' }, PASS],
];

function project() {
  return tree({
    '.git/HEAD': '',
    'src/app.ts': 'export const app = 1;\n',
    'plans/.keep': '',
    'handoff/notes.md': '',
    'plansX/readme.md': '',
  });
}

async function byGuard(root: string, toolName: string, toolArgs: Record<string, unknown>) {
  const runtime = await createRuntime({
    extensions: [workflowGuard],
    cwd: root,
    config: { extensions: { 'workflow-guard': { sandbox: 'off' } } },
    logger: memoryLogger(),
  });
  return runtime.runTurn({ sessionId: 's' }, (t) => t.interceptToolCall({ toolName, toolArgs }));
}

async function byCedar(root: string, toolName: string, toolArgs: Record<string, unknown>) {
  const home = tree({
    'policies/workflow-guard.cedar': CEDAR,
    'config.yaml':
      'extensions:\n  plan-first:\n    kind: cedar\n    policy: policies/workflow-guard.cedar\n',
  });
  const runtime = await loadRuntime({ home, cwd: root, logger: memoryLogger() });
  return runtime.runTurn({ sessionId: 's' }, (t) => t.interceptToolCall({ toolName, toolArgs }));
}

describe("workflow-guard's rule as a Cedar policy (examples/policies/workflow-guard/)", () => {
  it.each(TABLE)('%s %j: %s, as workflow-guard decides it', async (toolName, toolArgs, want) => {
    const root = project();
    const guard = await byGuard(root, toolName, toolArgs);
    const cedar = await byCedar(root, toolName, toolArgs);
    expect(guard.blocked ? BLOCK : PASS).toBe(want);
    expect(cedar.blocked ? BLOCK : PASS, cedar.blocked ? cedar.message : '').toBe(want);
    if (cedar.blocked) {
      expect(cedar).toMatchObject({ blockedBy: 'plan-first' });
      expect(cedar.message).toMatch(/^no plan yet: /);
    }
  });
});
