import { join } from 'node:path';
import { expect, it } from 'vitest';
import { tree } from '../support/fixtures.js';
import { runBin } from '../support/run-bin.js';
import { type FakeMessages, startFakeMessages } from './fake-messages-server.js';
import { describeRealAgent, runAgent } from './setup.js';

/**
 * The real Claude Code with the shipped secrets-guard named in the Hermes home's config, against
 * a scripted model on loopback: `cat .env` and a Read of `.env` are refused, and a file that
 * repeats one of its values reaches the model redacted. The value never reaches the model.
 */
const SECRET = 'hunter2-e2e-0123456789';

async function setup() {
  const project = tree({
    '.git/HEAD': 'ref: refs/heads/main\n',
    '.env': `DATABASE_PASSWORD=${SECRET}\n`,
    'notes.txt': `the password is ${SECRET}\n`,
  });
  const hermesHome = tree({
    'config.yaml': 'extensions:\n  paths: [hermes-extensions/secrets-guard]\n',
  });
  const home = tree();
  const installed = await runBin(['hook', 'install', 'claude-code'], {
    HOME: home,
    HERMES_HOME: hermesHome,
  });
  expect(installed.code, installed.stderr).toBe(0);
  return { project, hermesHome, home };
}

function claude(
  executable: string,
  env: { project: string; hermesHome: string; home: string },
  model: FakeMessages,
) {
  return runAgent(
    executable,
    ['-p', 'which database password do we use?', '--output-format', 'json'],
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

describeRealAgent('claude', 'real Claude Code with the shipped secrets-guard', (executable) => {
  it('refuses `cat .env` and a Read of .env, and redacts a value of .env in a result', async () => {
    const env = await setup();
    const model = await startFakeMessages([
      { name: 'Bash', input: { command: 'cat .env', description: 'show the env' } },
      { name: 'Read', input: { file_path: join(env.project, '.env') } },
      { name: 'Bash', input: { command: 'cat notes.txt', description: 'show the notes' } },
    ]);
    const run = await claude(executable, env, model);
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.stringify(model.requests).includes(SECRET), 'the secret reached the model').toBe(
      false,
    );
    const results = (model.requests.at(-1)?.messages ?? []).flatMap((m) =>
      Array.isArray(m.content)
        ? m.content.filter((block: { type?: string }) => block.type === 'tool_result')
        : [],
    );
    expect(results).toHaveLength(3);
    const [cat, read, notes] = results.map((r) => JSON.stringify(r));
    expect(cat).toMatch(/Blocked by secrets-guard/);
    expect(read).toMatch(/Blocked by secrets-guard/);
    expect(notes).toContain('the password is [redacted .env value DATABASE_PASSWORD]');
  }, 120_000);
});
