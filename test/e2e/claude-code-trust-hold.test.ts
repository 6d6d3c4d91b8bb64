import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { tree, tsExtension } from '../support/fixtures.js';
import { runBin } from '../support/run-bin.js';
import { type FakeMessages, startFakeMessages } from './fake-messages-server.js';
import { auditLines, describeRealAgent, runAgent, runHermes } from './setup.js';

/**
 * The real Claude Code in a project set up as the README's quickstart does, trusted, with a plan:
 * an edit of `.hermes/config.yaml` — by the agent, or by anyone between two turns — leaves the
 * trusted guards running (docs/trust.md, A change waits for review), so `.env` never reaches the
 * scripted model on loopback.
 */
const SECRET = 'hunter2-e2e-secret';

const envGuard = tsExtension(
  'env-guard',
  `hermes.on('intercept_tool_call', (event) =>
    JSON.stringify(event.toolArgs).includes('.env') ? block('E2E: .env holds secrets') : pass());`,
);

async function setup() {
  const project = tree({
    '.git/HEAD': 'ref: refs/heads/main\n',
    '.env': `SECRET=${SECRET}\n`,
    'src/.keep': '',
    'plans/active/plan.md': '# Plan\n1. tidy the config\n',
    '.hermes/config.yaml':
      'extensions:\n  paths: [hermes-extensions/workflow-guard, hermes-extensions/audit-log]\n',
    '.hermes/extensions/env-guard.ts': envGuard,
  });
  const hermesHome = tree();
  const home = tree();
  // The installed command carries the HERMES_HOME it was installed with (command-hooks.md, The
  // environment the hook runs in): the one the agent runs with below.
  const installed = await runBin(['hook', 'install', 'claude-code'], {
    HOME: home,
    HERMES_HOME: hermesHome,
  });
  expect(installed.code, installed.stderr).toBe(0);
  const trusted = await runHermes(['extensions', 'trust', '--yes', '--cwd', project], {
    HOME: home,
    HERMES_HOME: hermesHome,
  });
  expect(trusted.code, trusted.stderr).toBe(0);
  return { project, hermesHome, home };
}

function claude(
  executable: string,
  env: { project: string; hermesHome: string; home: string },
  model: FakeMessages,
  prompt: string,
) {
  return runAgent(
    executable,
    ['-p', prompt, '--output-format', 'json', '--permission-mode', 'acceptEdits'],
    {
      cwd: env.project,
      env: {
        HOME: env.home,
        HERMES_HOME: env.hermesHome,
        ANTHROPIC_BASE_URL: model.baseUrl,
        ANTHROPIC_API_KEY: 'sk-ant-test',
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
        DISABLE_AUTOUPDATER: '1',
        DISABLE_TELEMETRY: '1',
        DISABLE_ERROR_REPORTING: '1',
        CLAUDE_CODE_TMPDIR: join(env.home, 'tmp'),
        IS_SANDBOX: '1',
      },
    },
  );
}

const readEnv = (project: string) => [
  { name: 'Bash', input: { command: 'cat .env', description: 'show the env' } },
  { name: 'Read', input: { file_path: join(project, '.env') } },
];

/** The tool results of the model's last request: the two reads of .env are refused. */
function expectEnvRefused(model: FakeMessages, env: { project: string }) {
  const leaked = JSON.stringify(model.requests).includes(SECRET);
  expect(leaked, 'the secret in .env reached the model').toBe(false);
  const messages = model.requests.at(-1)?.messages ?? [];
  const results = messages.flatMap((m) =>
    Array.isArray(m.content)
      ? m.content.filter((block: { type?: string }) => block.type === 'tool_result')
      : [],
  );
  const last = results.slice(-2);
  expect(last).toHaveLength(2);
  for (const result of last) {
    expect(result.is_error).toBe(true);
    expect(JSON.stringify(result.content)).toContain('E2E: .env holds secrets');
  }
  // audit-log, named in the trusted config, recorded both refusals.
  const refused = auditLines(env.project).filter(
    (line) => line.event === 'post_tool_call' && line.status === 'blocked',
  );
  expect(refused.length).toBeGreaterThanOrEqual(2);
}

describeRealAgent('claude', 'real Claude Code: a trusted config edited keeps its guards', (exe) => {
  it('the agent edits .hermes/config.yaml (allowed or refused), then cat .env and Read .env are still refused', async () => {
    const env = await setup();
    const config = join(env.project, '.hermes/config.yaml');
    const model = await startFakeMessages([
      { name: 'Read', input: { file_path: config } },
      {
        name: 'Edit',
        input: {
          file_path: config,
          old_string: 'extensions:',
          new_string: '# tidied by the agent\nextensions:\n  disabled: [env-guard]',
        },
      },
      ...readEnv(env.project),
    ]);
    const run = await claude(exe, env, model, 'tidy the config, then show me the env');
    expect(run.code, run.stderr).toBe(0);
    expectEnvRefused(model, env);
  }, 120_000);

  it('the config changed outside the agent between two turns: the next turn still refuses .env', async () => {
    const env = await setup();
    const first = await startFakeMessages([{ name: 'Bash', input: { command: 'ls' } }]);
    expect((await claude(exe, env, first, 'look around')).code).toBe(0);
    appendFileSync(join(env.project, '.hermes/config.yaml'), '  disabled: [env-guard]\n');
    const model = await startFakeMessages(readEnv(env.project));
    const run = await claude(exe, env, model, 'show me the env');
    expect(run.code, run.stderr).toBe(0);
    expectEnvRefused(model, env);
  }, 120_000);
});
