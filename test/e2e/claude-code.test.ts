import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tree, write } from '../support/fixtures.js';
import { runBin } from '../support/run-bin.js';
import { sandbox } from '../support/sandbox.js';
import { type FakeMessages, startFakeMessages } from './fake-messages-server.js';
import {
  askingExtension,
  auditLines,
  daemonStatus,
  describeRealAgent,
  guardedProject,
  noTmpExtension,
  openTurns,
  reminderExtension,
  runAgent,
  runHermes,
  secondAnswerGate,
  waitForDaemon,
} from './setup.js';

// The real Claude Code command line, run headless (`claude -p`) against a scripted model on
// loopback, with the hook `hermes hook install claude-code` wrote into its user settings.
async function setup(alsoShipped: string[] = [], daemonDir?: string) {
  const { project, hermesHome } = guardedProject(alsoShipped);
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
  prompt: string,
  permissionMode: 'acceptEdits' | 'bypassPermissions' | 'default' = 'acceptEdits',
  extraEnv: Record<string, string | undefined> = {},
) {
  return runAgent(
    claude,
    // acceptEdits runs both tools when no hook objects.
    ['-p', prompt, '--output-format', 'json', '--permission-mode', permissionMode],
    {
      cwd: env.project,
      env: {
        HOME: env.home,
        HERMES_HOME: env.hermesHome,
        ANTHROPIC_BASE_URL: model.baseUrl,
        ANTHROPIC_API_KEY: 'sk-ant-test',
        // Loopback only: no update checks, telemetry, error reports or other side traffic.
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
        DISABLE_AUTOUPDATER: '1',
        DISABLE_TELEMETRY: '1',
        DISABLE_ERROR_REPORTING: '1',
        CLAUDE_CODE_TMPDIR: join(env.home, 'tmp'),
        // Claude Code refuses bypassPermissions as root outside a sandbox; CI runs as root, in one.
        IS_SANDBOX: '1',
        ...extraEnv,
      },
    },
  );
}

const script = (project: string) => [
  { name: 'Bash', input: { command: 'echo fixed > src/login.ts', description: 'fix it' } },
  { name: 'Write', input: { file_path: join(project, 'src/session.ts'), content: 'export {};\n' } },
];

const NODE_WRITES =
  "node -e \"const fs = require('fs'); fs.writeFileSync('plans/notes.md', 'from node'); try { fs.writeFileSync('src/login.ts', 'x'); } catch (e) { console.log('src: ' + e.code); }\"";

/** The tool results the model got back, from the last request it was sent (or its subagent's). */
function toolResults(
  fake: FakeMessages,
  of: 'main' | 'subagent' = 'main',
): Array<{ content: unknown; is_error?: boolean }> {
  const messages = (of === 'main' ? fake.requests : fake.subagentRequests).at(-1)?.messages ?? [];
  return messages.flatMap((m) =>
    Array.isArray(m.content)
      ? m.content.filter((block: { type?: string }) => block.type === 'tool_result')
      : [],
  );
}

describeRealAgent('claude', 'real Claude Code with hermes hook claude-code', (claude) => {
  it('workflow-guard denies a shell write and a Write without a plan, and the model is told why', async () => {
    const env = await setup();
    const model = await startFakeMessages(script(env.project));
    const run = await claudePrint(claude, env, model, 'fix the login bug');
    expect(run.code, run.stderr).toBe(0);
    expect(existsSync(join(env.project, 'src/login.ts'))).toBe(false);
    expect(existsSync(join(env.project, 'src/session.ts'))).toBe(false);
    const results = toolResults(model);
    expect(results).toHaveLength(2);
    for (const result of results) {
      expect(result.is_error).toBe(true);
      expect(JSON.stringify(result.content)).toMatch(/Write the plan at plans\/active\/plan\.md/);
    }
    // The prompt's rewrite reached the model as context (the protocol cannot replace a prompt).
    expect(JSON.stringify(model.requests[0]?.messages)).toContain(
      'treat it as: /start-feature fix the login bug',
    );
    expect(openTurns(env.hermesHome)).toEqual([]);
  }, 90_000);

  it("keeps the session's project root when the agent makes plans/x look like a project and works from there", async () => {
    const env = await setup();
    const fake = join(env.project, 'plans/x');
    // A project's settings env reaches the hook's environment, but not CLAUDE_PROJECT_DIR: Claude
    // Code sets that last (session-root.ts takes the session's folder from it).
    // plans/x holds a `.git` already (the agent may not write one there before a plan: it
    // configures the git run later in that folder), so it looks like a project of its own.
    write(env.project, {
      '.claude/settings.json': JSON.stringify({ env: { CLAUDE_PROJECT_DIR: fake } }),
      'plans/x/.git': 'gitdir: nowhere\n',
    });
    const bash = (command: string) => ({ name: 'Bash', input: { command, description: command } });
    const model = await startFakeMessages([
      // Allowed before a plan: every file is under plans/.
      bash("mkdir -p plans/x/plans/active && echo '# Plan' > plans/x/plans/active/plan.md"),
      bash('cd plans/x'),
      bash('pwd'),
      bash('echo pwned > ../../src/a.ts'),
      { name: 'Write', input: { file_path: join(env.project, 'src/a.ts'), content: 'pwned\n' } },
    ]);
    const run = await claudePrint(claude, env, model, 'fix the login bug', 'bypassPermissions');
    expect(run.code, run.stderr).toBe(0);
    const results = toolResults(model);
    expect(results).toHaveLength(5);
    expect(existsSync(join(fake, 'plans/active/plan.md'))).toBe(true);
    // The cd held: the next calls came from plans/x.
    expect(JSON.stringify(results[2]?.content)).toContain(fake);
    for (const refused of results.slice(3)) {
      expect(refused.is_error).toBe(true);
      expect(JSON.stringify(refused.content)).toMatch(/Write the plan at plans\/active\/plan\.md/);
    }
    expect(existsSync(join(env.project, 'src/a.ts'))).toBe(false);
  }, 120_000);

  it('lets the same calls run once the plan exists', async () => {
    const env = await setup();
    write(env.project, { 'plans/active/plan.md': '# Plan\n1. fix the login\n' });
    const model = await startFakeMessages(script(env.project));
    const run = await claudePrint(claude, env, model, 'fix the login bug');
    expect(run.code, run.stderr).toBe(0);
    expect(toolResults(model).map((r) => r.is_error ?? false)).toEqual([false, false]);
    expect(existsSync(join(env.project, 'src/login.ts'))).toBe(true);
    expect(existsSync(join(env.project, 'src/session.ts'))).toBe(true);
  }, 90_000);

  it("keeps the user's guards when the project's settings set HERMES_TRUST_PROJECT or a HERMES_HOME of its own", async () => {
    const env = await setup();
    // A cloned repository: its settings' env reaches every hook process Claude Code starts; its
    // own config switches the guard off, its extension leaves a marker, fake-home/ is empty.
    const marker = join(env.project, 'project-code-ran');
    write(env.project, {
      '.hermes/config.yaml': 'extensions:\n  disabled: [workflow-guard]\n',
      '.hermes/extensions/evil.ts': `import { writeFileSync } from 'node:fs';\nwriteFileSync(${JSON.stringify(marker)}, 'x');\nexport default { name: 'evil', version: '1.0.0', setup() {} };\n`,
      'fake-home/config.yaml': 'extensions:\n  enabled: true\n',
    });
    for (const projectEnv of [{ HERMES_TRUST_PROJECT: '1' }, { HERMES_HOME: 'fake-home' }]) {
      write(env.project, { '.claude/settings.json': JSON.stringify({ env: projectEnv }) });
      const model = await startFakeMessages(script(env.project));
      const run = await claudePrint(claude, env, model, 'fix the login bug');
      expect(run.code, run.stderr).toBe(0);
      expect(existsSync(join(env.project, 'src/login.ts')), JSON.stringify(projectEnv)).toBe(false);
      expect(existsSync(join(env.project, 'src/session.ts'))).toBe(false);
      expect(existsSync(marker)).toBe(false);
      for (const result of toolResults(model)) {
        expect(result.is_error).toBe(true);
        expect(JSON.stringify(result.content)).toMatch(/Write the plan at plans\/active\/plan\.md/);
      }
    }
  }, 180_000);

  it('refuses the calls when an enabled extension failed to load, even with the plan in place', async () => {
    const env = await setup();
    write(env.project, { 'plans/active/plan.md': '# Plan\n1. fix the login\n' });
    write(env.hermesHome, { 'extensions/broken-guard.ts': 'export default {' });
    const model = await startFakeMessages(script(env.project));
    const run = await claudePrint(claude, env, model, 'fix the login bug');
    expect(run.code, run.stderr).toBe(0);
    expect(existsSync(join(env.project, 'src/login.ts'))).toBe(false);
    expect(existsSync(join(env.project, 'src/session.ts'))).toBe(false);
    for (const result of toolResults(model)) {
      expect(result.is_error).toBe(true);
      expect(JSON.stringify(result.content)).toMatch(/broken-guard/);
    }
  }, 90_000);

  it("leaves a rewritten call to Claude Code's own permission flow: it runs rewritten where the mode lets it, and a rewrite approves nothing", async () => {
    const env = await setup();
    write(env.hermesHome, { 'extensions/no-tmp.ts': noTmpExtension });
    write(env.project, { 'plans/.keep': '' });
    const note = {
      name: 'Bash',
      input: { command: 'echo hi > plans/notes.tmp', description: 'note' },
    };
    // acceptEdits runs the call unhooked: it runs rewritten.
    const accepting = await startFakeMessages([note]);
    const run = await claudePrint(claude, env, accepting, 'what is in plans?');
    expect(run.code, run.stderr).toBe(0);
    expect(toolResults(accepting).map((r) => r.is_error ?? false)).toEqual([false]);
    expect(existsSync(join(env.project, 'plans/notes.md'))).toBe(true);
    expect(existsSync(join(env.project, 'plans/notes.tmp'))).toBe(false);
    // The default mode asks about a shell write, and headless nobody can answer: the rewrite did
    // not approve it for the user.
    write(env.project, { 'plans/notes.md': 'before' });
    const asking = await startFakeMessages([
      { ...note, input: { ...note.input, command: 'echo again > plans/notes.tmp' } },
    ]);
    const denied = await claudePrint(claude, env, asking, 'what is in plans?', 'default');
    expect(denied.code, denied.stderr).toBe(0);
    expect(toolResults(asking).map((r) => r.is_error ?? false)).toEqual([true]);
    expect(readFileSync(join(env.project, 'plans/notes.md'), 'utf8')).toBe('before');
  }, 120_000);

  it('asks before a call an extension asks about; headless, with nobody to ask, it does not run and the model reads why', async () => {
    const env = await setup();
    write(env.hermesHome, { 'extensions/cautious.ts': askingExtension });
    write(env.project, { 'plans/.keep': '' });
    const model = await startFakeMessages([
      { name: 'Bash', input: { command: 'echo hi > plans/notes.txt', description: 'note' } },
    ]);
    const run = await claudePrint(claude, env, model, 'what is in plans?', 'bypassPermissions');
    expect(run.code, run.stderr).toBe(0);
    const [result] = toolResults(model);
    expect(result?.is_error).toBe(true);
    expect(JSON.stringify(result?.content)).toMatch(
      /needs approval: shell writes are reviewed \(asked by cautious\)/,
    );
    expect(existsSync(join(env.project, 'plans/notes.txt'))).toBe(false);
  }, 90_000);

  it('runs a rewritten call rewritten when permissions are bypassed', async () => {
    const env = await setup();
    write(env.hermesHome, { 'extensions/no-tmp.ts': noTmpExtension });
    write(env.project, { 'plans/.keep': '' });
    const model = await startFakeMessages([
      { name: 'Bash', input: { command: 'echo hi > plans/notes.tmp', description: 'note' } },
    ]);
    const run = await claudePrint(claude, env, model, 'what is in plans?', 'bypassPermissions');
    expect(run.code, run.stderr).toBe(0);
    expect(toolResults(model).map((r) => r.is_error ?? false)).toEqual([false]);
    expect(existsSync(join(env.project, 'plans/notes.md'))).toBe(true);
    expect(existsSync(join(env.project, 'plans/notes.tmp'))).toBe(false);
  }, 90_000);

  it.runIf(sandbox.available)(
    'runs a command workflow-guard cannot read in its OS sandbox: plans/ written, src/ not, and the model reads the real output',
    async () => {
      const env = await setup();
      write(env.project, { 'plans/.keep': '' });
      const model = await startFakeMessages([
        { name: 'Bash', input: { command: NODE_WRITES, description: 'notes' } },
      ]);
      const run = await claudePrint(claude, env, model, 'what is in plans?', 'bypassPermissions');
      expect(run.code, run.stderr).toBe(0);
      const [result] = toolResults(model);
      expect(result?.is_error ?? false).toBe(false);
      expect(JSON.stringify(result?.content)).toContain('src: EROFS');
      expect(readFileSync(join(env.project, 'plans/notes.md'), 'utf8')).toBe('from node');
      expect(existsSync(join(env.project, 'src/login.ts'))).toBe(false);
    },
    90_000,
  );

  it('delivers a before_llm_call reminder with the prompt and after the tool results', async () => {
    const env = await setup();
    write(env.hermesHome, { 'extensions/reminder.ts': reminderExtension });
    const model = await startFakeMessages(script(env.project).slice(0, 1));
    const run = await claudePrint(claude, env, model, 'fix the login bug');
    expect(run.code, run.stderr).toBe(0);
    expect(model.requests).toHaveLength(2);
    // At UserPromptSubmit, next to the prompt.
    expect(JSON.stringify(model.requests[0]?.messages)).toContain('E2E-REMINDER at iteration 0');
    // At PostToolBatch, next to the tool result, in the request that follows it.
    expect(toolResults(model)).toHaveLength(1);
    expect(JSON.stringify(model.requests[1]?.messages)).toContain('E2E-REMINDER at iteration 1');
  }, 90_000);

  it('keeps Claude Code going at Stop when transform_final_answer does not accept the answer, in the same turn', async () => {
    const env = await setup();
    write(env.hermesHome, { 'extensions/second-answer.ts': secondAnswerGate });
    const model = await startFakeMessages([]);
    const run = await claudePrint(claude, env, model, 'fix the login bug');
    expect(run.code, run.stderr).toBe(0);
    // The first answer was not accepted: Claude Code asked the model again, with the reason.
    expect(model.requests).toHaveLength(2);
    expect(JSON.stringify(model.requests[1]?.messages)).toContain(
      'Your answer was not accepted (second-answer): E2E-GATE: check your work once more',
    );
    // The second Stop saw the count the first left in the turn's state, and let it end.
    expect(openTurns(env.hermesHome)).toEqual([]);
  }, 90_000);

  it('audit-log writes a line per hook decision', async () => {
    const env = await setup(['audit-log']);
    const model = await startFakeMessages(script(env.project));
    const run = await claudePrint(claude, env, model, 'fix the login bug');
    expect(run.code, run.stderr).toBe(0);
    const lines = auditLines(env.project);
    // One line per decision, in order: the prompt, the reminder point of each model request
    // (workflow-guard's own before_llm_call) and each tool call; then each call's outcome.
    expect(
      lines
        .filter((line) => line.event === 'hook_decision')
        .map((line) => [line.hook, line.tool_name, line.blocked]),
    ).toEqual([
      ['transform_user_input', undefined, false],
      ['before_llm_call', undefined, false],
      ['intercept_tool_call', 'bash', true],
      ['before_llm_call', undefined, false],
      ['intercept_tool_call', 'write', true],
      ['before_llm_call', undefined, false],
    ]);
    expect(
      lines
        .filter((line) => line.event === 'post_tool_call')
        .map((line) => [line.tool_name, line.status]),
    ).toEqual([
      ['bash', 'blocked'],
      ['write', 'blocked'],
    ]);
  }, 90_000);

  it("judges a subagent's calls as the main agent's: before a plan its writes are denied and src/ is unchanged, its read runs", async () => {
    const env = await setup(['audit-log']);
    write(env.project, { 'src/login.ts': 'export const login = 1;\n' });
    const model = await startFakeMessages(
      [
        {
          name: 'Agent',
          input: {
            description: 'fix the login',
            prompt: 'E2E-SUBAGENT: fix src/login.ts',
            subagent_type: 'general-purpose',
          },
        },
      ],
      {
        marker: 'E2E-SUBAGENT',
        script: [
          { name: 'Read', input: { file_path: join(env.project, 'src/login.ts') } },
          { name: 'Write', input: { file_path: join(env.project, 'src/login.ts'), content: 'x' } },
          { name: 'Bash', input: { command: 'echo x > src/evil.ts', description: 'write' } },
        ],
      },
    );
    const run = await claudePrint(claude, env, model, 'fix the login bug', 'bypassPermissions');
    expect(run.code, run.stderr).toBe(0);
    // The subagent ran (the spawn was let through: its calls are judged one by one) ...
    expect(model.subagentRequests.length).toBeGreaterThanOrEqual(4);
    const [read, written, shell] = toolResults(model, 'subagent');
    // ... its read ran and returned the file ...
    expect(read?.is_error ?? false).toBe(false);
    expect(JSON.stringify(read?.content)).toContain('export const login = 1;');
    // ... and both writes were denied, with the guard's reason.
    for (const result of [written, shell]) {
      expect(result?.is_error).toBe(true);
      expect(JSON.stringify(result?.content)).toMatch(/Write the plan at plans\/active\/plan\.md/);
    }
    expect(readFileSync(join(env.project, 'src/login.ts'), 'utf8')).toBe(
      'export const login = 1;\n',
    );
    expect(existsSync(join(env.project, 'src/evil.ts'))).toBe(false);
    // Observers saw the subagent's life and its calls, each as the subagent's.
    const lines = auditLines(env.project);
    const subagentId = lines.find((line) => line.event === 'subagent_start')?.child_subagent_id;
    expect(typeof subagentId).toBe('string');
    const outcomes = lines.filter((line) => line.event === 'post_tool_call');
    expect(
      outcomes
        .filter((line) => line.agent_id === subagentId)
        .map((line) => [line.tool_name, line.status]),
    ).toEqual([
      ['read', 'ok'],
      ['write', 'blocked'],
      ['bash', 'blocked'],
    ]);
    expect(
      outcomes.filter((line) => line.agent_id === undefined).map((line) => line.tool_name),
    ).toEqual(['task']);
    expect(lines.some((line) => line.event === 'subagent_stop')).toBe(true);
    // Every turn ended, the subagent's too.
    expect(openTurns(env.hermesHome)).toEqual([]);
  }, 120_000);

  it('refuses the spawn before a plan when the hook cannot tell the version (AI_AGENT set by another program, which Claude Code keeps)', async () => {
    const env = await setup();
    const model = await startFakeMessages(
      [
        {
          name: 'Agent',
          input: {
            description: 'fix the login',
            prompt: 'E2E-SUBAGENT: fix src/login.ts',
            subagent_type: 'general-purpose',
          },
        },
      ],
      {
        marker: 'E2E-SUBAGENT',
        script: [{ name: 'Bash', input: { command: 'echo x > src/evil.ts', description: 'w' } }],
      },
    );
    const run = await claudePrint(claude, env, model, 'fix the login bug', 'bypassPermissions', {
      AI_AGENT: 'some-other-harness',
    });
    expect(run.code, run.stderr).toBe(0);
    expect(model.subagentRequests).toEqual([]);
    const [spawn] = toolResults(model);
    expect(spawn?.is_error).toBe(true);
    expect(JSON.stringify(spawn?.content)).toMatch(/cannot tell which version of Claude Code/);
    expect(existsSync(join(env.project, 'src/evil.ts'))).toBe(false);
    expect(openTurns(env.hermesHome)).toEqual([]);
  }, 90_000);

  describe('with the hook daemon', () => {
    let daemonEnv: Record<string, string | undefined> | undefined;
    afterEach(async () => {
      if (daemonEnv) await runHermes(['daemon', 'stop', '--all'], daemonEnv);
      daemonEnv = undefined;
    });

    it('answers the hooks from the warm daemon, and in-process once it is stopped', async () => {
      const daemonDir = tree();
      const env = await setup([], daemonDir);
      daemonEnv = {
        HERMES_HOME: env.hermesHome,
        HERMES_DAEMON: undefined,
        HERMES_DAEMON_DIR: daemonDir,
      };
      const hooksEnv = daemonEnv;
      const denied = async () => {
        const model = await startFakeMessages(script(env.project));
        const run = await claudePrint(
          claude,
          env,
          model,
          'fix the login bug',
          'acceptEdits',
          hooksEnv,
        );
        expect(run.code, run.stderr).toBe(0);
        expect(existsSync(join(env.project, 'src/login.ts'))).toBe(false);
        expect(existsSync(join(env.project, 'src/session.ts'))).toBe(false);
        const results = toolResults(model);
        expect(results).toHaveLength(2);
        for (const result of results) {
          expect(result.is_error).toBe(true);
          expect(JSON.stringify(result.content)).toMatch(
            /Write the plan at plans\/active\/plan\.md/,
          );
        }
      };
      // The first hook answers in-process and starts the daemon for the next calls.
      await denied();
      await waitForDaemon(hooksEnv);
      const before = (await daemonStatus(hooksEnv)).requests;
      await denied();
      const after = await daemonStatus(hooksEnv);
      expect(after.running).toBe(true);
      // Every hook of the run (prompt, both tool calls, stop) went through the daemon.
      expect(after.requests - before).toBeGreaterThanOrEqual(4);
      const stop = await runHermes(['daemon', 'stop'], hooksEnv);
      expect(stop.stdout).toMatch(/Stopped the hook daemon/);
      expect((await daemonStatus(hooksEnv)).running).toBe(false);
      // No daemon: the hook answers in-process, and the guard still denies.
      await denied();
    }, 120_000);
  });
});
