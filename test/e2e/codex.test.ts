import { appendFileSync, existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tree, write } from '../support/fixtures.js';
import { root, runBin } from '../support/run-bin.js';
import { sandbox } from '../support/sandbox.js';
import {
  type FakeResponses,
  type ScriptedCall,
  startFakeResponses,
} from './fake-responses-server.js';
import {
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

// The real Codex command line, run offline (`codex exec`) against a scripted model on loopback,
// with the hook `hermes hook install codex` wrote into its hooks.json.
async function setup(alsoShipped: string[] = [], daemonDir?: string) {
  const { project, hermesHome } = guardedProject(alsoShipped);
  const home = tree();
  const codexHome = tree();
  // The hook carries the Hermes home and the daemon folder it is installed with
  // (docs/command-hooks.md).
  const installed = await runBin(['hook', 'install', 'codex'], {
    CODEX_HOME: codexHome,
    HOME: home,
    HERMES_HOME: hermesHome,
    ...(daemonDir === undefined ? {} : { HERMES_DAEMON_DIR: daemonDir }),
  });
  expect(installed.code, installed.stderr).toBe(0);
  return { project, hermesHome, home, codexHome };
}

function configure(codexHome: string, baseUrl: string, features = '') {
  // A model Codex knows (so it offers apply_patch), our loopback provider, and nothing that
  // reaches for the network (plugins, apps, updates, analytics) or reads the user's shell files.
  write(codexHome, {
    'config.toml': `model = "gpt-5.5"
model_provider = "fake"
approval_policy = "never"
sandbox_mode = "danger-full-access"
check_for_update_on_startup = false

[model_providers.fake]
name = "fake"
base_url = "${baseUrl}"
wire_api = "responses"
request_max_retries = 0
stream_max_retries = 0

[features]
hooks = true
plugins = false
apps = false
remote_plugin = false
shell_snapshot = false
in_app_updates = false
${features}

[analytics]
enabled = false
`,
  });
}

function codexExec(
  codex: string,
  env: { project: string; hermesHome: string; home: string; codexHome: string },
  prompt: string,
  extraEnv: Record<string, string | undefined> = {},
) {
  return runAgent(
    codex,
    [
      'exec',
      '--json',
      '--skip-git-repo-check',
      '--dangerously-bypass-approvals-and-sandbox',
      // Codex runs a new hook only once the user has trusted it in its /hooks screen.
      '--dangerously-bypass-hook-trust',
      prompt,
    ],
    {
      cwd: env.project,
      env: { HOME: env.home, CODEX_HOME: env.codexHome, HERMES_HOME: env.hermesHome, ...extraEnv },
    },
  );
}

const script = [
  { shell: 'echo fixed > src/login.ts' },
  { patch: '*** Begin Patch\n*** Add File: src/session.ts\n+export {};\n*** End Patch\n' },
];

const NODE_WRITES =
  "node -e \"const fs = require('fs'); fs.writeFileSync('plans/notes.md', 'from node'); try { fs.writeFileSync('src/login.ts', 'x'); } catch (e) { console.log('src: ' + e.code); }\"";

/**
 * What the model was told about each tool call, from the request after the last one: the main
 * agent's, or a subagent's own (Codex may copy the parent's history into a subagent's input; the
 * fake model's call ids name the conversation, `sub…` for a subagent).
 */
function toolOutputs(fake: FakeResponses | FakeResponses['requests']): string[] {
  const subagent = Array.isArray(fake);
  const last = (subagent ? fake : fake.requests).at(-1)?.input ?? [];
  return last
    .filter((item) => String(item.type).endsWith('_call_output'))
    .filter((item) => !subagent || String(item.call_id).startsWith('sub'))
    .map((item) => String(item.output));
}

// A subagent is told its task with this marker: the scripted model answers its requests with
// SUBAGENT_SCRIPT. It reads a source file, then tries to write src/ by shell and by patch.
const SUBAGENT = 'SUBAGENT-TASK-4b1e';
const SUBAGENT_SCRIPT = [{ shell: 'cat src/app.ts' }, ...script];
const APP = 'export const app = "the app";\n';

function expectSourceUnchanged(project: string) {
  expect(existsSync(join(project, 'src/login.ts'))).toBe(false);
  expect(existsSync(join(project, 'src/session.ts'))).toBe(false);
  expect(readFileSync(join(project, 'src/app.ts'), 'utf8')).toBe(APP);
}

/**
 * How the main agent delegates, under each of Codex 0.169's two sets of subagent tools. By
 * default (`multi_agent`) Codex offers them only through its tool search, in the namespace
 * `multi_agent_v1`; `[features] multi_agent_v2` offers them up front in `collaboration`.
 * Either way the model then waits for the subagent's answer.
 */
const DELEGATIONS: Array<{ tools: string; features: string; calls: ScriptedCall[] }> = [
  {
    tools: 'multi_agent (the default)',
    features: '',
    calls: [
      { search: 'spawn a sub-agent' },
      {
        tool: 'spawn_agent',
        namespace: 'multi_agent_v1',
        args: { message: `${SUBAGENT} fix the login bug in src/` },
        waitsFor: SUBAGENT,
      },
    ],
  },
  {
    tools: 'multi_agent_v2',
    features: 'multi_agent_v2 = true',
    calls: [
      {
        tool: 'spawn_agent',
        namespace: 'collaboration',
        args: { task_name: 'fixer', message: `${SUBAGENT} fix the login bug in src/` },
        waitsFor: SUBAGENT,
      },
    ],
  },
];

/**
 * Codex's own program, as a Codex not installed from npm runs: without npm's launcher, which
 * tells the hooks where its package (and so its version) is.
 */
function nativeCodex(): string {
  const vendor = join(root, 'test/real-agents/node_modules/@openai');
  const found = readdirSync(vendor)
    .filter((dir) => dir.startsWith('codex-'))
    .flatMap((dir) =>
      readdirSync(join(vendor, dir, 'vendor')).map((triple) =>
        join(vendor, dir, 'vendor', triple, 'bin', 'codex'),
      ),
    )
    .find((file) => existsSync(file));
  if (found === undefined) throw new Error(`no Codex program under ${vendor}/codex-*/vendor`);
  return found;
}

describeRealAgent('codex', 'real Codex with hermes hook codex', (codex) => {
  it('workflow-guard blocks a shell write and a patch without a plan, and the model is told why', async () => {
    const env = await setup();
    const model = await startFakeResponses(script);
    configure(env.codexHome, model.baseUrl);
    const run = await codexExec(codex, env, 'fix the login bug');
    expect(run.code, run.stderr).toBe(0);
    expect(existsSync(join(env.project, 'src/login.ts'))).toBe(false);
    expect(existsSync(join(env.project, 'src/session.ts'))).toBe(false);
    const outputs = toolOutputs(model);
    expect(outputs).toHaveLength(2);
    for (const output of outputs) {
      expect(output).toMatch(/blocked by PreToolUse hook/);
      expect(output).toMatch(/Write the plan at plans\/active\/plan\.md/);
    }
    // The prompt's rewrite reached the model as context (Codex cannot replace a prompt).
    expect(JSON.stringify(model.requests[0]?.input)).toContain(
      'treat it as: /start-feature fix the login bug',
    );
    // Stop ended the turn: its state is gone.
    expect(openTurns(env.hermesHome)).toEqual([]);
  }, 90_000);

  it('lets the same calls run once the plan exists', async () => {
    const env = await setup();
    write(env.project, { 'plans/active/plan.md': '# Plan\n1. fix the login\n' });
    const model = await startFakeResponses(script);
    configure(env.codexHome, model.baseUrl);
    const run = await codexExec(codex, env, 'fix the login bug');
    expect(run.code, run.stderr).toBe(0);
    expect(toolOutputs(model).join('\n')).not.toMatch(/blocked/);
    expect(existsSync(join(env.project, 'src/login.ts'))).toBe(true);
    expect(existsSync(join(env.project, 'src/session.ts'))).toBe(true);
  }, 90_000);

  it('refuses the calls when an enabled extension failed to load, even with the plan in place', async () => {
    const env = await setup();
    write(env.project, { 'plans/active/plan.md': '# Plan\n1. fix the login\n' });
    write(env.hermesHome, { 'extensions/broken-guard.ts': 'export default {' });
    const model = await startFakeResponses(script);
    configure(env.codexHome, model.baseUrl);
    const run = await codexExec(codex, env, 'fix the login bug');
    expect(run.code, run.stderr).toBe(0);
    expect(existsSync(join(env.project, 'src/login.ts'))).toBe(false);
    expect(existsSync(join(env.project, 'src/session.ts'))).toBe(false);
    const outputs = toolOutputs(model);
    expect(outputs).toHaveLength(2);
    for (const output of outputs)
      expect(output).toMatch(/blocked by PreToolUse hook.*broken-guard/s);
  }, 90_000);

  it("accepts a prompt answer that carries a systemMessage (an untrusted project's notice)", async () => {
    const env = await setup();
    write(env.project, { '.hermes/extensions/local.ts': 'export default {' });
    const model = await startFakeResponses([]);
    configure(env.codexHome, model.baseUrl);
    const run = await codexExec(codex, env, 'fix the login bug');
    expect(run.code, run.stderr).toBe(0);
    // Had Codex refused the answer (systemMessage next to additionalContext), the context would be lost.
    expect(JSON.stringify(model.requests[0]?.input)).toContain(
      'treat it as: /start-feature fix the login bug',
    );
  }, 90_000);

  it('runs the rewritten call when an extension rewrites it (allow + updatedInput)', async () => {
    const env = await setup();
    write(env.hermesHome, { 'extensions/no-tmp.ts': noTmpExtension });
    write(env.project, { 'plans/.keep': '' });
    const model = await startFakeResponses([{ shell: 'echo hi > plans/notes.tmp' }]);
    configure(env.codexHome, model.baseUrl);
    const run = await codexExec(codex, env, 'what is in plans?');
    expect(run.code, run.stderr).toBe(0);
    expect(toolOutputs(model).join('\n')).not.toMatch(/blocked/);
    expect(existsSync(join(env.project, 'plans/notes.md'))).toBe(true);
    expect(existsSync(join(env.project, 'plans/notes.tmp'))).toBe(false);
  }, 90_000);

  it.runIf(sandbox.available)(
    'runs a command workflow-guard cannot read in its OS sandbox: plans/ written, src/ not, and the model reads the real output',
    async () => {
      const env = await setup();
      write(env.project, { 'plans/.keep': '' });
      const model = await startFakeResponses([{ shell: NODE_WRITES }]);
      configure(env.codexHome, model.baseUrl);
      const run = await codexExec(codex, env, 'what is in plans?');
      expect(run.code, run.stderr).toBe(0);
      expect(toolOutputs(model).join('\n')).toContain('src: EROFS');
      expect(readFileSync(join(env.project, 'plans/notes.md'), 'utf8')).toBe('from node');
      expect(existsSync(join(env.project, 'src/login.ts'))).toBe(false);
    },
    90_000,
  );

  it('delivers a before_llm_call reminder with the prompt and after a tool result', async () => {
    const env = await setup();
    write(env.hermesHome, { 'extensions/reminder.ts': reminderExtension });
    // Codex runs PostToolUse only for a call that ran (not one PreToolUse blocked): the plan
    // lets the guard allow it.
    write(env.project, { 'plans/active/plan.md': '# Plan\n1. fix the login\n' });
    const model = await startFakeResponses(script.slice(0, 1));
    configure(env.codexHome, model.baseUrl);
    const run = await codexExec(codex, env, 'fix the login bug');
    expect(run.code, run.stderr).toBe(0);
    expect(model.requests).toHaveLength(2);
    // At UserPromptSubmit, next to the prompt.
    expect(JSON.stringify(model.requests[0]?.input)).toContain('E2E-REMINDER at iteration 0');
    // At PostToolUse, in the request that carries the tool's output.
    expect(toolOutputs(model)).toHaveLength(1);
    expect(existsSync(join(env.project, 'src/login.ts'))).toBe(true);
    expect(JSON.stringify(model.requests[1]?.input)).toContain('E2E-REMINDER at iteration 1');
  }, 90_000);

  it('keeps Codex going at Stop when transform_final_answer does not accept the answer, in the same turn', async () => {
    const env = await setup();
    write(env.hermesHome, { 'extensions/second-answer.ts': secondAnswerGate });
    const model = await startFakeResponses([]);
    configure(env.codexHome, model.baseUrl);
    const run = await codexExec(codex, env, 'fix the login bug');
    expect(run.code, run.stderr).toBe(0);
    // The first answer was not accepted: Codex asked the model again, with the reason.
    expect(model.requests).toHaveLength(2);
    expect(JSON.stringify(model.requests[1]?.input)).toContain(
      'Your answer was not accepted (second-answer): E2E-GATE: check your work once more',
    );
    expect(openTurns(env.hermesHome)).toEqual([]);
  }, 90_000);

  it('audit-log writes a line per hook decision', async () => {
    const env = await setup(['audit-log']);
    const model = await startFakeResponses(script);
    configure(env.codexHome, model.baseUrl);
    const run = await codexExec(codex, env, 'fix the login bug');
    expect(run.code, run.stderr).toBe(0);
    const lines = auditLines(env.project);
    // One line per decision, in order: the prompt, its reminder point and each tool call (Codex
    // runs no PostToolUse after a blocked call, so no reminder point follows them); then each
    // call's outcome, right after its decision.
    expect(lines.map((line) => [line.event, line.hook ?? line.status, line.tool_name])).toEqual([
      ['hook_decision', 'transform_user_input', undefined],
      ['hook_decision', 'before_llm_call', undefined],
      ['hook_decision', 'intercept_tool_call', 'bash'],
      ['post_tool_call', 'blocked', 'bash'],
      ['hook_decision', 'intercept_tool_call', 'patch'],
      ['post_tool_call', 'blocked', 'patch'],
    ]);
    expect(
      lines.filter((line) => line.hook === 'intercept_tool_call').map((l) => l.blocked),
    ).toEqual([true, true]);
  }, 90_000);

  describe('a subagent', () => {
    /** The main agent delegates the fix to a subagent; workflow-guard's config gets `guardConfig`. */
    async function delegate(delegation: (typeof DELEGATIONS)[number], guardConfig = '') {
      const env = await setup();
      if (guardConfig)
        appendFileSync(join(env.hermesHome, 'config.yaml'), `  workflow-guard:\n${guardConfig}`);
      write(env.project, { 'src/app.ts': APP });
      const model = await startFakeResponses(delegation.calls, { [SUBAGENT]: SUBAGENT_SCRIPT });
      configure(env.codexHome, model.baseUrl, delegation.features);
      const run = await codexExec(codex, env, 'fix the login bug, with a helper agent');
      expect(run.code, run.stderr).toBe(0);
      return { env, model, subagent: model.subagentRequests[SUBAGENT] ?? [] };
    }

    /** The subagent ran: its read worked, both writes were denied for want of a plan. */
    function expectJudged({ env, model, subagent }: Awaited<ReturnType<typeof delegate>>) {
      expect(toolOutputs(model).join('\n')).not.toMatch(/blocked/);
      const told = toolOutputs(subagent);
      expect(told).toHaveLength(3);
      expect(told[0]).toContain('the app');
      for (const output of told.slice(1))
        expect(output).toMatch(
          /blocked by PreToolUse hook.*Write the plan at plans\/active\/plan\.md/s,
        );
      expectSourceUnchanged(env.project);
      // The main agent's Stop ended its turn, and the subagent's turn is not left behind.
      expect(openTurns(env.hermesHome)).toEqual([]);
    }

    for (const delegation of DELEGATIONS) {
      it(`${delegation.tools}: a subagent the user lets start before a plan has each call judged: its writes to src/ are denied, its read runs`, async () => {
        expectJudged(await delegate(delegation, '    read_only_tools: [spawn_agent]\n'));
      }, 90_000);

      it(`${delegation.tools}: before a plan the subagent starts (Codex 0.169 from npm tells its hooks its version, and sends them a subagent's calls), and each of its calls is judged`, async () => {
        expectJudged(await delegate(delegation));
      }, 90_000);
    }
  });

  it("refuses the spawn before a plan when the hook cannot tell Codex's version (its program run without npm's launcher, as a Codex installed otherwise runs)", async () => {
    const native = nativeCodex();
    const env = await setup();
    write(env.project, { 'src/app.ts': APP });
    const model = await startFakeResponses(DELEGATIONS[0].calls, { [SUBAGENT]: SUBAGENT_SCRIPT });
    configure(env.codexHome, model.baseUrl, DELEGATIONS[0].features);
    const run = await codexExec(native, env, 'fix the login bug, with a helper agent');
    expect(run.code, run.stderr).toBe(0);
    expect(model.subagentRequests[SUBAGENT] ?? []).toEqual([]);
    const spawn = toolOutputs(model).find((output) => output.includes('spawn_agent'));
    expect(spawn).toMatch(/blocked by PreToolUse hook/);
    expect(spawn).toMatch(/cannot tell which version of Codex/);
    expectSourceUnchanged(env.project);
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
      // The hook's environment as Codex gives it: CODEX_HOME is part of the daemon's key.
      daemonEnv = {
        HERMES_HOME: env.hermesHome,
        CODEX_HOME: env.codexHome,
        HERMES_DAEMON: undefined,
        HERMES_DAEMON_DIR: daemonDir,
      };
      const hooksEnv = daemonEnv;
      const blocked = async () => {
        const model = await startFakeResponses(script);
        configure(env.codexHome, model.baseUrl);
        const run = await codexExec(codex, env, 'fix the login bug', hooksEnv);
        expect(run.code, run.stderr).toBe(0);
        expect(existsSync(join(env.project, 'src/login.ts'))).toBe(false);
        expect(existsSync(join(env.project, 'src/session.ts'))).toBe(false);
        const outputs = toolOutputs(model);
        expect(outputs).toHaveLength(2);
        for (const output of outputs)
          expect(output).toMatch(
            /blocked by PreToolUse hook.*Write the plan at plans\/active\/plan\.md/s,
          );
      };
      // The first hook answers in-process and starts the daemon for the next calls.
      await blocked();
      await waitForDaemon(hooksEnv);
      const before = (await daemonStatus(hooksEnv)).requests;
      await blocked();
      const after = await daemonStatus(hooksEnv);
      expect(after.running).toBe(true);
      // Every hook of the run (prompt, both tool calls, stop) went through the daemon.
      expect(after.requests - before).toBeGreaterThanOrEqual(4);
      const stop = await runHermes(['daemon', 'stop'], hooksEnv);
      expect(stop.stdout).toMatch(/Stopped the hook daemon/);
      expect((await daemonStatus(hooksEnv)).running).toBe(false);
      // No daemon: the hook answers in-process, and the guard still blocks.
      await blocked();
    }, 120_000);
  });
});
