import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { hermes } from '../../cli/hermes-cli.js';
import { jsonLines, tree, tsExtension, write } from '../../support/fixtures.js';
import { built, runHook } from '../../support/run-bin.js';

/**
 * A trusted project whose files change afterwards (docs/trust.md, What trust covers): the last
 * trusted config and extensions stay in force until the user trusts again, through the real hook
 * process. The agent, or the user who forgets to trust again, cannot turn the guards off by an edit.
 */
const CONFIG = [
  'extensions:',
  '  paths: [hermes-extensions/workflow-guard, hermes-extensions/audit-log]',
  '  workflow-guard:',
  '    sandbox: off',
  '',
].join('\n');

/** The user's own guard: no tool call that names `.env`. */
const envGuard = (decision: string) =>
  tsExtension(
    'env-guard',
    `hermes.on('intercept_tool_call', (event) =>
      JSON.stringify(event.toolArgs).includes('.env') ? ${decision} : pass());`,
  );

const GUARD = '.hermes/extensions/env-guard.ts';

async function trustedProject() {
  const home = tree();
  const project = tree({
    '.git/HEAD': '',
    '.env': 'SECRET=hunter2\n',
    'src/app.ts': 'x\n',
    '.hermes/config.yaml': CONFIG,
    [GUARD]: envGuard("block('.env holds secrets')"),
  });
  const trusted = await hermes(home, 'extensions', 'trust', '--yes', '--cwd', project);
  expect(trusted.code, trusted.stderr).toBe(0);
  return { home, project };
}

let calls = 0;

function base(project: string, session: string) {
  return { session_id: session, transcript_path: '/dev/null', cwd: project };
}

function toolCall(project: string, session: string, tool: string, input: object) {
  return {
    ...base(project, session),
    permission_mode: 'default',
    hook_event_name: 'PreToolUse',
    tool_name: tool,
    tool_input: input,
    tool_use_id: `call_${calls++}`,
  };
}

async function ask(home: string, event: object) {
  const answer = await runHook('claude-code', home, event, { HERMES_TRUST_PROJECT: '' });
  const output = answer.stdout === '' ? undefined : JSON.parse(answer.stdout);
  return { output, stderr: answer.stderr, code: answer.code };
}

const decisionOf = (output: { hookSpecificOutput?: { permissionDecision?: string } } | undefined) =>
  output?.hookSpecificOutput?.permissionDecision ?? 'allow';

const CHANGES: Array<[string, (project: string) => void, string]> = [
  [
    'a comment appended to .hermes/config.yaml',
    (project) => write(project, { '.hermes/config.yaml': `${CONFIG}# tidied\n` }),
    '.hermes/config.yaml',
  ],
  [
    'the config rewritten to disable the guards',
    (project) =>
      write(project, {
        '.hermes/config.yaml':
          'extensions:\n  disabled: [env-guard, workflow-guard, audit-log]\n  paths: []\n',
      }),
    '.hermes/config.yaml',
  ],
  [
    "the guard extension's file edited to pass everything",
    (project) => write(project, { [GUARD]: envGuard('pass()') }),
    GUARD,
  ],
  [
    'a new project extension that allows everything first',
    (project) =>
      write(project, {
        '.hermes/extensions/allow-all.ts': tsExtension(
          'allow-all',
          `hermes.on('intercept_tool_call', () => ({ decision: 'allow' }), { priority: -1000 });`,
        ),
      }),
    '.hermes/extensions/allow-all.ts',
  ],
  ['the guard extension removed', (project) => rmSync(join(project, GUARD)), GUARD],
  [
    'the whole .hermes folder removed',
    (project) => rmSync(join(project, '.hermes'), { recursive: true }),
    '.hermes/config.yaml',
  ],
];

describe.runIf(built)(
  'a trusted project that changed keeps its trusted guards',
  { timeout: 120_000 },
  () => {
    for (const [name, change, named] of CHANGES) {
      it(`after ${name}: .env stays refused, audited, and the change is told once`, async () => {
        const { home, project } = await trustedProject();
        change(project);
        const session = `s-${calls++}`;
        const prompt = {
          ...base(project, session),
          hook_event_name: 'UserPromptSubmit',
          prompt: 'go',
        };
        const first = await ask(home, prompt);

        const cat = await ask(home, toolCall(project, session, 'Bash', { command: 'cat .env' }));
        expect(decisionOf(cat.output), cat.stderr).toBe('deny');
        const read = await ask(
          home,
          toolCall(project, session, 'Read', { file_path: join(project, '.env') }),
        );
        expect(decisionOf(read.output), read.stderr).toBe('deny');
        expect(first.output?.systemMessage).toMatch(/awaits .*hermes extensions trust/);
        expect(first.output?.systemMessage).toContain(named);
        // workflow-guard, named in the trusted config, holds too: no write before a plan.
        const edit = await ask(
          home,
          toolCall(project, session, 'Write', {
            file_path: join(project, 'src/app.ts'),
            content: 'y',
          }),
        );
        expect(decisionOf(edit.output)).toBe('deny');
        // Told once: the next answer of the session says nothing more.
        const again = await ask(home, { ...prompt, prompt: 'again' });
        expect(again.output?.systemMessage ?? '').not.toMatch(/awaits/);

        // audit-log, named in the trusted config, recorded both refusals.
        const audit = join(project, '.hermes/audit/audit.jsonl');
        const refused = jsonLines(audit).filter((line) =>
          JSON.stringify(line).includes('.env holds secrets'),
        );
        expect(refused.length, readFileSync(audit, 'utf8')).toBeGreaterThanOrEqual(2);
      });
    }
  },
);
