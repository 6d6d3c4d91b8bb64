import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tree, write } from '../../support/fixtures.js';
import { built, runHook } from '../../support/run-bin.js';
import { runShell, sandbox, sandboxedUnder } from '../../support/sandbox.js';

/**
 * Links a patch makes, through the real hook process as Codex sends its calls
 * (extensions/workflow-guard/README.md, Links a patch makes): a diff that makes `plans/l` a link to
 * `../src` and writes `plans/l/a.ts` through it is denied as `apply_patch`; as a shell `patch` or
 * `git apply` it runs in the sandbox, where GNU patch makes the link and cannot write src/. With a
 * plan and `module_roots`, the same shape making a new module, and a program run right in a
 * module root, are denied. In-process cases: extensions/workflow-guard/patch-links.test.ts.
 */
const LINK_THEN_WRITE = `diff --git a/plans/l b/plans/l
new file mode 120000
--- /dev/null
+++ b/plans/l
@@ -0,0 +1 @@
+../src
\\ No newline at end of file
diff --git a/plans/l/a.ts b/plans/l/a.ts
--- a/plans/l/a.ts
+++ b/plans/l/a.ts
@@ -1 +1 @@
-export const a = 1;
+export const a = 666;
`;

const LINK_THEN_MODULE = `diff --git a/plans/l b/plans/l
new file mode 120000
--- /dev/null
+++ b/plans/l
@@ -0,0 +1 @@
+../src
\\ No newline at end of file
diff --git a/plans/l/newmod/x.ts b/plans/l/newmod/x.ts
new file mode 100644
--- /dev/null
+++ b/plans/l/newmod/x.ts
@@ -0,0 +1 @@
+x
`;

function setup(guard = '') {
  const home = tree({
    'config.yaml': `extensions:\n  paths: [hermes-extensions/workflow-guard]\n${guard}`,
  });
  const project = tree({
    '.git/HEAD': '',
    'src/a.ts': 'export const a = 1;\n',
    'plans/link.diff': LINK_THEN_WRITE,
    'plans/module.diff': LINK_THEN_MODULE,
    'handoff/newmod/x.ts': 'x\n',
  });
  return { home, project };
}

let calls = 0;

function event(cwd: string, tool: string, input: Record<string, unknown>) {
  return {
    session_id: 'codex-session',
    turn_id: 't1',
    model: 'gpt-5.5',
    cwd,
    permission_mode: 'bypassPermissions',
    hook_event_name: 'PreToolUse',
    tool_name: tool,
    tool_input: input,
    tool_use_id: `call_${calls++}`,
  };
}

async function answer(home: string, sent: unknown) {
  const run = await runHook('codex', home, sent);
  if (run.stdout === '') return { decision: `exit ${run.code}: allowed`, input: undefined };
  const output = JSON.parse(run.stdout).hookSpecificOutput;
  return { decision: output?.permissionDecision ?? 'none', input: output?.updatedInput };
}

const SLOW = 60_000;

describe.runIf(built)(
  'workflow-guard through the hook: links a patch makes',
  { timeout: SLOW },
  () => {
    it('denies apply_patch making a link to src/ and writing through it', async () => {
      const { home, project } = setup();
      const sent = event(project, 'apply_patch', { command: LINK_THEN_WRITE });
      expect((await answer(home, sent)).decision).toBe('deny');
    });

    it.runIf(sandbox.available)(
      'runs a shell patch or git apply of such a file in the sandbox, where src/ stays as it was',
      async () => {
        const { home, project } = setup();
        for (const command of ['patch -p1 < plans/link.diff', 'git apply plans/link.diff']) {
          const { decision, input } = await answer(home, event(project, 'Bash', { command }));
          expect(decision, command).toBe('allow');
          const inner = sandboxedUnder(home, input ?? {}, {
            root: project,
            writable: ['plans/', 'handoff/'],
            stateDir: join(home, 'sandbox'),
          });
          expect(inner, command).toBe(command);
          runShell(input.command, project);
          expect(readFileSync(join(project, 'src/a.ts'), 'utf8'), command).toBe(
            'export const a = 1;\n',
          );
        }
      },
    );

    it('with a plan and module_roots, denies a module made through a link or in a module root', async () => {
      const { home, project } = setup('  workflow-guard:\n    module_roots: [src/]\n');
      write(project, { 'plans/active/plan.md': '# Plan\nWork in src/planned.\n' });
      const calls = [
        event(project, 'apply_patch', { command: LINK_THEN_MODULE }),
        event(project, 'Bash', { command: 'patch -p1 < plans/module.diff' }),
        event(project, 'Bash', { command: 'cp -r handoff/. src' }),
        event(join(project, 'src'), 'Bash', {
          command: `node -e "require('fs').mkdirSync('newmod')"`,
        }),
      ];
      const decisions = [];
      for (const sent of calls) decisions.push((await answer(home, sent)).decision);
      expect(decisions).toEqual(['deny', 'deny', 'deny', 'deny']);
      // What the plan names passes.
      const planned = event(project, 'apply_patch', {
        command: LINK_THEN_MODULE.replaceAll('newmod', 'planned'),
      });
      expect((await answer(home, planned)).decision).toBe('exit 0: allowed');
    });
  },
);
