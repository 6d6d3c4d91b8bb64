import { describe, expect, it } from 'vitest';
import { tree } from '../../support/fixtures.js';
import { built, runHook } from '../../support/run-bin.js';

/**
 * The shipped secrets-guard named in config, through real Claude Code hook processes: a read of
 * `.env` is denied at PreToolUse (in shell or by the Read tool), its example passes, and a result
 * that shows the project's `.env` values or a key reaches the model redacted at PostToolUse. The
 * full tables are in-process (extensions/secrets-guard/index.test.ts).
 */
const TOKEN = 'tok-9f8e7d6c5b4a3210';

function setup() {
  const home = tree({
    'config.yaml': 'extensions:\n  paths: [hermes-extensions/secrets-guard]\n',
  });
  const project = tree({
    '.git/HEAD': '',
    '.env': `API_TOKEN=${TOKEN}\n`,
    '.env.example': 'API_TOKEN=\n',
  });
  return { home, project };
}

let calls = 0;

function event(project: string, hook: string, tool: string, input: Record<string, unknown>) {
  return {
    session_id: 'secrets-session',
    transcript_path: '/dev/null',
    cwd: project,
    permission_mode: 'default',
    hook_event_name: hook,
    tool_name: tool,
    tool_input: input,
    tool_use_id: `toolu_${calls++}`,
  };
}

async function answer(home: string, sent: unknown) {
  const run = await runHook('claude-code', home, sent);
  expect(run.code, run.stderr).toBe(0);
  return run.stdout === ''
    ? undefined
    : (JSON.parse(run.stdout).hookSpecificOutput as Record<string, unknown> | undefined);
}

describe.runIf(built)('secrets-guard through the Claude Code hook', { timeout: 60_000 }, () => {
  it('denies `cat .env` and a Read of .env, and lets `cat .env.example` through', async () => {
    const { home, project } = setup();
    const cat = await answer(home, event(project, 'PreToolUse', 'Bash', { command: 'cat .env' }));
    expect(cat).toMatchObject({
      permissionDecision: 'deny',
      permissionDecisionReason: expect.stringContaining('secrets-guard'),
    });
    const read = await answer(
      home,
      event(project, 'PreToolUse', 'Read', { file_path: `${project}/.env` }),
    );
    expect(read?.permissionDecision).toBe('deny');
    const example = await answer(
      home,
      event(project, 'PreToolUse', 'Bash', { command: 'cat .env.example' }),
    );
    expect(example?.permissionDecision).not.toBe('deny');
  });

  it("redacts the project's .env values and a key shape in a Bash result", async () => {
    const { home, project } = setup();
    const output = await answer(home, {
      ...event(project, 'PostToolUse', 'Bash', { command: 'node app.js' }),
      tool_response: {
        stdout: `connecting with ${TOKEN} and AKIAIOSFODNN7EXAMPLE\n`,
        stderr: '',
        interrupted: false,
        isImage: false,
        noOutputExpected: false,
      },
    });
    const shown = output?.updatedToolOutput as { stdout: string } | undefined;
    expect(shown?.stdout).toBe(
      'connecting with [redacted .env value API_TOKEN] and [redacted AWS access key]\n',
    );
  });
});
