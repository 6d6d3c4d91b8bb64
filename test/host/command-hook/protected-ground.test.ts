import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tree } from '../../support/fixtures.js';
import { built, hookHomes, preToolUse, runHook, WORKFLOW_GUARD } from '../../support/run-bin.js';

/**
 * Protected ground through the real hook process (docs/trust.md, Protected ground): with
 * workflow-guard set up and a plan present — so the guard itself lets edits through — Claude
 * Code's PreToolUse for a change to what decides the guards is denied by the framework.
 */
function setup() {
  // HERMES_HOME is set, to the user's default home (~/.hermes).
  const { user, home } = hookHomes(WORKFLOW_GUARD, { '.claude/.keep': '' });
  const project = tree({
    '.git/HEAD': '',
    '.claude/settings.json': '{}\n',
    'src/app.ts': 'export const app = 1;\n',
    'plans/active/plan.md': '# Plan\n\nGoal: change src/app.ts.\n',
  });
  return { user, home, project };
}

let calls = 0;
const call = (cwd: string, tool: string, input: Record<string, unknown>) =>
  preToolUse('protected-ground', cwd, tool, input, `call_${calls++}`);

async function answer(env: { user: string; home: string }, sent: unknown) {
  const result = await runHook('claude-code', env.home, sent, { HOME: env.user });
  if (result.stdout === '') return { decision: `exit ${result.code}: allowed`, reason: '' };
  const output = JSON.parse(result.stdout).hookSpecificOutput;
  return {
    decision: output?.permissionDecision ?? 'none',
    reason: String(output?.permissionDecisionReason ?? ''),
  };
}

describe.runIf(built)(
  'protected ground through `hermes hook claude-code`',
  { timeout: 60_000 },
  () => {
    it('denies the changes to what decides the guards, with a plan, and lets the planned edit through', async () => {
      const env = setup();
      const { project } = env;
      const denied: Array<[string, Record<string, unknown>]> = [
        ['Write', { file_path: join(project, '.hermes/config.yaml'), content: 'extensions: {}\n' }],
        ['Bash', { command: 'hermes extensions trust --yes' }],
        ['Bash', { command: 'echo {} > ~/.hermes/trusted-projects.json' }],
        [
          'Edit',
          {
            file_path: join(project, '.claude/settings.json'),
            old_string: '{}',
            new_string: '{"hooks":{}}',
          },
        ],
      ];
      for (const [tool, input] of denied) {
        const got = await answer(env, call(project, tool, input));
        expect(got.decision, `${tool} ${JSON.stringify(input)}`).toBe('deny');
        expect(got.reason).toContain('protected ground');
      }
      const planned = await answer(
        env,
        call(project, 'Write', {
          file_path: join(project, 'src/app.ts'),
          content: 'export const app = 2;\n',
        }),
      );
      expect(planned.decision).toBe('exit 0: allowed');
      expect(readFileSync(join(project, '.claude/settings.json'), 'utf8')).toBe('{}\n');
    });

    it('denies a patch command whose strip level or folder lands it on protected ground', async () => {
      const env = setup();
      const { project } = env;
      // Harmless-looking at the -p1 the guard took for granted; the hook settings at -p0.
      const hunk = (name: string) => `--- ${name}\n+++ ${name}\n@@ -1 +1 @@\n-{}\n+{"hooks":{}}\n`;
      mkdirSync(join(project, 'plans/p'), { recursive: true });
      writeFileSync(join(project, 'plans/p/bare.diff'), hunk('.claude/settings.json'));
      writeFileSync(
        join(project, 'plans/p/git.diff'),
        `diff --git a/settings.json b/settings.json\n${hunk('a/settings.json').replace('+++ a/', '+++ b/')}`,
      );
      for (const command of [
        'patch -p0 < plans/p/bare.diff',
        'git apply --directory=.claude plans/p/git.diff',
        'patch --frobnicate -p1 -i plans/p/bare.diff',
      ]) {
        const got = await answer(env, call(project, 'Bash', { command }));
        expect(got.decision, command).toBe('deny');
        expect(got.reason, command).toMatch(/protected ground/);
      }
      expect(readFileSync(join(project, '.claude/settings.json'), 'utf8')).toBe('{}\n');
    });
  },
);
