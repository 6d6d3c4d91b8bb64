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

/** The table, shared with the Rego policy's `opa test` (workflow_guard_test.rego). */
const { cases } = JSON.parse(
  readFileSync(
    new URL('../../examples/policies/workflow-guard/cases.json', import.meta.url),
    'utf8',
  ),
) as { cases: Array<{ tool: string; args: Record<string, unknown>; want: 'block' | 'pass' }> };
const TABLE = cases.map(({ tool, args, want }) => [tool, args, want] as const);

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
  it('has calls that pass and calls that are blocked', () => {
    expect(new Set(cases.map(({ want }) => want))).toEqual(new Set(['block', 'pass']));
  });

  it.each(TABLE)('%s %j: %s, as workflow-guard decides it', async (toolName, toolArgs, want) => {
    const root = project();
    const guard = await byGuard(root, toolName, toolArgs);
    const cedar = await byCedar(root, toolName, toolArgs);
    expect(guard.blocked ? 'block' : 'pass').toBe(want);
    expect(cedar.blocked ? 'block' : 'pass', cedar.blocked ? cedar.message : '').toBe(want);
    if (cedar.blocked) {
      expect(cedar).toMatchObject({ blockedBy: 'plan-first' });
      expect(cedar.message).toMatch(/^no plan yet: /);
    }
  });
});
