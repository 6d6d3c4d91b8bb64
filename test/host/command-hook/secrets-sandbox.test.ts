import { describe, expect, it } from 'vitest';
import { tree } from '../../support/fixtures.js';
import { built, hookHomes, preToolUse, runHook } from '../../support/run-bin.js';
import { runShellAsync, sandbox } from '../../support/sandbox.js';

/**
 * secrets-guard keeps the secret files out of sandboxed commands' reach
 * (extensions/secrets-guard/README.md, In the sandbox), through the real hook process: a command
 * that names no secret file and runs a program that reads one runs in a sandbox — workflow-guard's
 * before a plan, the protected-ground sandbox after one or without workflow-guard — and, run as
 * Claude Code runs what the hook hands back, cannot print it; without secrets-guard it can.
 */
const SECRET = 'sk-live-hook0123456789SECRET';

function setup(extensions: string[], planned: boolean) {
  const paths = extensions.map((name) => `hermes-extensions/${name}`).join(', ');
  const { user, home } = hookHomes(`extensions:\n  paths: [${paths}]\n`);
  const project = tree({
    '.git/HEAD': '',
    '.env': `API_KEY=${SECRET}\n`,
    'notes.txt': 'project notes\n',
    'read-env.js': `const fs = require('fs');
for (const f of ['.e' + 'nv', 'notes.txt']) {
  try { console.log(f + '=' + fs.readFileSync(f, 'utf8')); } catch (e) { console.log(f + ' ' + e.code); }
}
`,
    ...(planned ? { 'plans/active/plan.md': '# Plan\n\nGoal: read the config.\n' } : {}),
  });
  return { user, home, project };
}

let calls = 0;

/** What Claude Code runs for the Bash call, run as it runs it. */
async function runAsClaudeCode(env: ReturnType<typeof setup>, command: string) {
  const answer = await runHook(
    'claude-code',
    env.home,
    preToolUse('secrets-sandbox', env.project, 'Bash', { command }, `call_${calls++}`),
    { HOME: env.user },
  );
  expect(answer.code, answer.stderr).toBe(0);
  const output = answer.stdout === '' ? {} : JSON.parse(answer.stdout).hookSpecificOutput;
  expect(output?.permissionDecision, output?.permissionDecisionReason).not.toBe('deny');
  const ran = String(output?.updatedInput?.command ?? command);
  const run = await runShellAsync(ran, env.project, {
    ...process.env,
    HOME: env.user,
    HERMES_HOME: env.home,
  });
  return { ran, ...run };
}

describe.runIf(built && sandbox.available)(
  'secret files in the sandbox through `hermes hook claude-code`',
  { timeout: 120_000 },
  () => {
    for (const [name, extensions, planned] of [
      ['workflow-guard without a plan', ['secrets-guard', 'workflow-guard'], false],
      ['workflow-guard with a plan', ['secrets-guard', 'workflow-guard'], true],
      ['no workflow-guard', ['secrets-guard'], false],
    ] as const) {
      it(`${name}: node read-env.js reads notes.txt and cannot open .env`, async () => {
        const env = setup([...extensions], planned);
        const run = await runAsClaudeCode(env, 'node read-env.js');
        expect(run.ran).not.toBe('node read-env.js');
        expect(run.code, run.stderr).toBe(0);
        expect(run.stdout).not.toContain(SECRET);
        expect(run.stdout).toContain('.env EACCES');
        expect(run.stdout).toContain('notes.txt=project notes');
      });
    }

    it('without secrets-guard the sandboxed command reads .env, as before', async () => {
      const env = setup(['workflow-guard'], true);
      const run = await runAsClaudeCode(env, 'node read-env.js');
      expect(run.ran).not.toBe('node read-env.js');
      expect(run.stdout).toContain(SECRET);
    });
  },
);
