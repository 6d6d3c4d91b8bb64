import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tree, tsExtension, write } from '../support/fixtures.js';
import { runBin } from '../support/run-bin.js';
import { type FakeMessages, startFakeMessages } from './fake-messages-server.js';
import {
  daemonStatus,
  describeRealAgent,
  guardedProject,
  runAgent,
  runHermes,
  waitForDaemon,
} from './setup.js';

/**
 * transform_tool_result through the real Claude Code: what the scripted model server receives as
 * the tool results is what the model would read. Claude Code ignores an `updatedToolOutput` that
 * does not fit its tool's output shape (showing the original), so only this test shows the
 * answers of tool-result.ts are taken.
 */
const SECRET = 'sk-live-0123456789abcdef';

const REDACTOR = tsExtension(
  'redactor',
  `hermes.on('transform_tool_result', (e) => {
    const redacted = mapStrings(e.result, (s) => s.replaceAll(${JSON.stringify(SECRET)}, '[redacted]'));
    return redacted === e.result ? undefined : rewrite(redacted);
  });`,
  `import { mapStrings } from 'hermes-extensions/policy';\nimport { rewrite } from 'hermes-extensions';`,
);

const BLOCKER = tsExtension(
  'key-guard',
  `hermes.on('transform_tool_result', (e) => JSON.stringify(e.result).includes(${JSON.stringify(SECRET)}) ? block('E2E: keys stay out of the model') : undefined);`,
);

const RESHAPER = tsExtension(
  'reshaper',
  `hermes.on('transform_tool_result', (e) => rewrite('[the output was removed]'), { tools: ['bash'] });`,
  `import { rewrite } from 'hermes-extensions';`,
);

async function setup(extension: string, daemonDir?: string) {
  const { project, hermesHome } = guardedProject();
  write(project, { 'secrets.txt': `API_KEY=${SECRET}\n` });
  write(hermesHome, { 'extensions/results.ts': extension });
  const home = tree();
  // The hook carries the Hermes home and the daemon folder it is installed with
  // (docs/command-hooks.md).
  const installed = await runBin(['hook', 'install', 'claude-code'], {
    HOME: home,
    HERMES_HOME: hermesHome,
    ...(daemonDir === undefined ? {} : { HERMES_DAEMON_DIR: daemonDir }),
  });
  expect(installed.code, installed.stderr).toBe(0);
  return { project, hermesHome, home };
}

function claudePrint(
  claude: string,
  env: { project: string; hermesHome: string; home: string },
  model: FakeMessages,
  extraEnv: Record<string, string | undefined> = {},
) {
  return runAgent(
    claude,
    ['-p', 'show me the secrets', '--output-format', 'json', '--permission-mode', 'acceptEdits'],
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
        ...extraEnv,
      },
    },
  );
}

const script = (project: string) => [
  { name: 'Bash', input: { command: 'cat secrets.txt', description: 'read it' } },
  { name: 'Read', input: { file_path: join(project, 'secrets.txt') } },
];

/** The tool results of the last request the model got, as text. */
function toolResults(fake: FakeMessages): string[] {
  const messages = fake.requests.at(-1)?.messages ?? [];
  return messages.flatMap((m) =>
    Array.isArray(m.content)
      ? m.content
          .filter((block: { type?: string }) => block.type === 'tool_result')
          .map((block: unknown) => JSON.stringify(block))
      : [],
  );
}

describeRealAgent('claude', 'real Claude Code: transform_tool_result at PostToolUse', (claude) => {
  it('a Bash and a Read result holding a secret reach the model redacted', async () => {
    const env = await setup(REDACTOR);
    const model = await startFakeMessages(script(env.project));
    const run = await claudePrint(claude, env, model);
    expect(run.code, run.stderr).toBe(0);
    const results = toolResults(model);
    expect(results).toHaveLength(2);
    for (const result of results) {
      expect(result).toContain('API_KEY=[redacted]');
      expect(result).not.toContain(SECRET);
    }
    expect(JSON.stringify(model.requests)).not.toContain(SECRET);
  }, 90_000);

  it('a blocked result reaches the model as the refusal', async () => {
    const env = await setup(BLOCKER);
    const model = await startFakeMessages(script(env.project));
    const run = await claudePrint(claude, env, model);
    expect(run.code, run.stderr).toBe(0);
    const results = toolResults(model);
    expect(results).toHaveLength(2);
    for (const result of results) {
      expect(result).toContain('E2E: keys stay out of the model');
      expect(result).toContain('blocked_by_extension');
    }
    expect(JSON.stringify(model.requests)).not.toContain(SECRET);
  }, 90_000);

  it('a rewrite Claude Code would ignore (not in the Bash output shape) reaches the model as a refusal', async () => {
    const env = await setup(RESHAPER);
    const model = await startFakeMessages(script(env.project).slice(0, 1));
    const run = await claudePrint(claude, env, model);
    expect(run.code, run.stderr).toBe(0);
    const results = toolResults(model);
    expect(results).toHaveLength(1);
    expect(results[0]).toContain('reshaper rewrote it into a form Bash');
    expect(JSON.stringify(model.requests)).not.toContain(SECRET);
  }, 90_000);

  describe('with the hook daemon', () => {
    let daemonEnv: Record<string, string | undefined> | undefined;
    afterEach(async () => {
      if (daemonEnv) await runHermes(['daemon', 'stop', '--all'], daemonEnv);
      daemonEnv = undefined;
    });

    it('the warm daemon gives the same redacted results', async () => {
      const daemonDir = tree();
      const env = await setup(REDACTOR, daemonDir);
      const hooksEnv = {
        HERMES_HOME: env.hermesHome,
        HERMES_DAEMON: undefined,
        HERMES_DAEMON_DIR: daemonDir,
      };
      daemonEnv = hooksEnv;
      const redacted = async () => {
        const model = await startFakeMessages(script(env.project));
        const run = await claudePrint(claude, env, model, hooksEnv);
        expect(run.code, run.stderr).toBe(0);
        const results = toolResults(model);
        expect(results).toHaveLength(2);
        for (const result of results) expect(result).toContain('API_KEY=[redacted]');
        expect(JSON.stringify(model.requests)).not.toContain(SECRET);
      };
      // The first run starts the daemon; the second is answered by it.
      await redacted();
      await waitForDaemon(hooksEnv);
      const before = (await daemonStatus(hooksEnv)).requests;
      await redacted();
      expect((await daemonStatus(hooksEnv)).requests - before).toBeGreaterThanOrEqual(4);
    }, 120_000);
  });
});
