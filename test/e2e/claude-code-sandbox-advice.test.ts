import { join } from 'node:path';
import { expect, it } from 'vitest';
import { tree } from '../support/fixtures.js';
import { runBin } from '../support/run-bin.js';
import { sandbox } from '../support/sandbox.js';
import { startFakeMessages } from './fake-messages-server.js';
import { describeRealAgent, guardedProject, runAgent } from './setup.js';

/**
 * Before a plan, workflow-guard runs `touch src/y` in the OS sandbox; the write fails, the command
 * exits 1, and Claude Code reports it at `PostToolUseFailure`, whose error text no hook can
 * replace: the guard's advice reaches the model as that event's `additionalContext`
 * (docs/command-hooks.md, Tool results). What the scripted model server receives next is what the
 * model would read.
 */
describeRealAgent('claude', 'real Claude Code: the sandbox tells the model why', (claude) => {
  it.runIf(sandbox.available)(
    'a write the sandbox refused reaches the model with what is writable and the plan',
    async () => {
      const { project, hermesHome } = guardedProject();
      const home = tree();
      const installed = await runBin(['hook', 'install', 'claude-code'], {
        HOME: home,
        HERMES_HOME: hermesHome,
      });
      expect(installed.code, installed.stderr).toBe(0);
      const model = await startFakeMessages([
        { name: 'Bash', input: { command: 'touch src/y', description: 'make a file' } },
      ]);
      const run = await runAgent(
        claude,
        ['-p', 'look around', '--output-format', 'json', '--permission-mode', 'bypassPermissions'],
        {
          cwd: project,
          env: {
            HOME: home,
            HERMES_HOME: hermesHome,
            ANTHROPIC_BASE_URL: model.baseUrl,
            ANTHROPIC_API_KEY: 'sk-ant-test',
            CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
            DISABLE_AUTOUPDATER: '1',
            DISABLE_TELEMETRY: '1',
            DISABLE_ERROR_REPORTING: '1',
            CLAUDE_CODE_TMPDIR: join(home, 'tmp'),
            IS_SANDBOX: '1',
          },
          timeout: 90_000,
        },
      );
      expect(run.code, run.stderr).toBe(0);
      const after = JSON.stringify(model.requests.at(-1)?.messages ?? []);
      expect(after).toMatch(/Read-only file system/);
      expect(after).toContain('workflow-guard: the OS sandbox refused this write');
      expect(after).toContain('plans/active/plan.md');
    },
    120_000,
  );
});
