import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { pluginFileText } from '../../src/host/command-hook/settings/opencode-plugin-file.js';
import { tree, write } from '../support/fixtures.js';
import {
  type FakeMessages,
  type ScriptedToolUse,
  startFakeMessages,
} from './fake-messages-server.js';
import {
  daemonStatus,
  describeRealAgent,
  guardedProject,
  noTmpExtension,
  openTurns,
  runAgent,
  runHermes,
  waitForDaemon,
} from './setup.js';

// The real OpenCode (`opencode run`), offline, against a scripted Anthropic Messages model on
// loopback, with the plugin `hermes hook install opencode` wrote into its plugin folder.

const APP = 'export const app = "the app";\n';

async function setup(alsoShipped: string[] = []) {
  const { project, hermesHome } = guardedProject(alsoShipped);
  write(project, { 'src/app.ts': APP, 'plans/.keep': '' });
  const home = tree();
  const installed = await runHermes(['hook', 'install', 'opencode'], {
    HOME: home,
    XDG_CONFIG_HOME: join(home, '.config'),
  });
  expect(installed.code, installed.stderr).toBe(0);
  return { project, hermesHome, home };
}

/**
 * OpenCode's config: a provider on loopback that speaks Anthropic's Messages API (OpenCode bundles
 * that SDK), and nothing that reaches for the network. OpenCode installs `@opencode-ai/plugin`
 * into each config folder it reads unless the folder has a `node_modules` and a lock that lists
 * it (checked in opencode-ai 1.18.33): the plugin imports nothing, so an empty one will do.
 */
function configure(home: string, baseUrl: string) {
  write(join(home, '.config/opencode'), {
    'opencode.json': JSON.stringify({
      $schema: 'https://opencode.ai/config.json',
      model: 'fake/claude-fake',
      autoupdate: false,
      share: 'disabled',
      provider: {
        fake: {
          npm: '@ai-sdk/anthropic',
          name: 'Fake',
          options: { baseURL: `${baseUrl}/v1`, apiKey: 'test-key' },
          models: { 'claude-fake': { name: 'Claude Fake', tool_call: true } },
        },
      },
    }),
    'package-lock.json': JSON.stringify({
      packages: { '': { dependencies: { '@opencode-ai/plugin': '1.18.33' } } },
    }),
    'node_modules/.keep': '',
  });
}

function opencodeRun(
  opencode: string,
  env: { project: string; hermesHome: string; home: string },
  prompt: string,
  extraEnv: Record<string, string | undefined> = {},
) {
  return runAgent(opencode, ['run', '--format', 'json', prompt], {
    cwd: env.project,
    env: {
      HOME: env.home,
      XDG_CONFIG_HOME: join(env.home, '.config'),
      XDG_DATA_HOME: join(env.home, '.local/share'),
      XDG_CACHE_HOME: join(env.home, '.cache'),
      XDG_STATE_HOME: join(env.home, '.local/state'),
      HERMES_HOME: env.hermesHome,
      // No model list, update, LSP server or default plugin from the network; no Claude Code
      // settings or skills of the machine's user.
      OPENCODE_DISABLE_MODELS_FETCH: '1',
      OPENCODE_DISABLE_AUTOUPDATE: '1',
      OPENCODE_DISABLE_LSP_DOWNLOAD: '1',
      OPENCODE_DISABLE_DEFAULT_PLUGINS: '1',
      OPENCODE_DISABLE_SHARE: '1',
      OPENCODE_DISABLE_CLAUDE_CODE: '1',
      OPENCODE_DISABLE_EXTERNAL_SKILLS: '1',
      ...extraEnv,
    },
  });
}

/** What the model was told about each of its tool calls, from the last request. */
function toolResults(model: FakeMessages): Array<{ content: string; isError: boolean }> {
  const messages = model.requests.at(-1)?.messages ?? [];
  return messages
    .flatMap((message) => (Array.isArray(message.content) ? message.content : []))
    .filter((block: { type?: string }) => block.type === 'tool_result')
    .map((block: { content: unknown; is_error?: boolean }) => ({
      content: typeof block.content === 'string' ? block.content : JSON.stringify(block.content),
      isError: block.is_error === true,
    }));
}

/** Nothing was downloaded: no npm cache, and the config folder's node_modules as it was made. */
function expectNothingDownloaded(home: string) {
  expect(existsSync(join(home, '.npm'))).toBe(false);
  expect(readdirSync(join(home, '.config/opencode/node_modules'))).toEqual(['.keep']);
}

describeRealAgent('opencode', 'real OpenCode with the hermes plugin', (opencode) => {
  it('workflow-guard refuses an edit before a plan, a read passes, and the model is told why', async () => {
    const env = await setup();
    const app = join(env.project, 'src/app.ts');
    const script: ScriptedToolUse[] = [
      { name: 'edit', input: { filePath: app, oldString: 'the app', newString: 'fixed' } },
      { name: 'read', input: { filePath: app } },
    ];
    const model = await startFakeMessages(script);
    configure(env.home, model.baseUrl);
    const run = await opencodeRun(opencode, env, 'fix the login bug');
    expect(run.code, run.stderr).toBe(0);
    expect(readFileSync(app, 'utf8')).toBe(APP);
    const [edit, read] = toolResults(model);
    expect(edit?.isError).toBe(true);
    expect(edit?.content).toMatch(
      /Blocked by workflow-guard: edit would write src\/app\.ts, and no plan exists/,
    );
    expect(read?.isError).toBe(false);
    expect(read?.content).toContain('the app');
    // The prompt's context reached the model, in its system prompt.
    expect(
      JSON.stringify((model.requests[0] as { system?: unknown } | undefined)?.system),
    ).toContain('No plan exists yet at plans/active/plan.md');
    // The session's idle ended the turn: its state is gone.
    expect(openTurns(env.hermesHome)).toEqual([]);
    expectNothingDownloaded(env.home);
  });

  it('a rewrite applies: the shell runs the command as an extension rewrote it', async () => {
    const env = await setup();
    write(env.hermesHome, { 'extensions/no-tmp.ts': noTmpExtension });
    const model = await startFakeMessages([
      {
        name: 'bash',
        input: { command: 'echo fixed > plans/notes.tmp', description: 'Write notes' },
      },
    ]);
    configure(env.home, model.baseUrl);
    const run = await opencodeRun(opencode, env, 'write the notes');
    expect(run.code, run.stderr).toBe(0);
    expect(readFileSync(join(env.project, 'plans/notes.md'), 'utf8')).toBe('fixed\n');
    expect(existsSync(join(env.project, 'plans/notes.tmp'))).toBe(false);
    expect(openTurns(env.hermesHome)).toEqual([]);
  });

  it('transform_tool_result: a secret a tool read reaches the model redacted, and a blocked result as the refusal', async () => {
    const env = await setup();
    // A plan, so workflow-guard lets the shell run; the extension redacts a key and refuses
    // what prints the environment.
    write(env.project, {
      'plans/active/plan.md': '# Plan\n',
      'plans/keys.txt': 'KEY=sk-live-123\n',
    });
    write(env.hermesHome, {
      'extensions/results.ts': `import { block, defineExtension, rewrite } from 'hermes-extensions';
import { mapStrings } from 'hermes-extensions/policy';
export default defineExtension({ name: 'results', setup(hermes) {
  hermes.on('transform_tool_result', (e) => JSON.stringify(e.result).includes('sk-live-')
    ? rewrite(mapStrings(e.result, (s) => s.replaceAll('sk-live-123', '[redacted]'))) : undefined);
  hermes.on('transform_tool_result', (e) => String(e.toolArgs.command).includes('printenv')
    ? block('environment dumps stay private') : undefined, { tools: ['bash'], priority: 10 });
} });
`,
    });
    const model = await startFakeMessages([
      // OpenCode asks before reading a `.env` file itself; a file of keys elsewhere it reads.
      { name: 'read', input: { filePath: join(env.project, 'plans/keys.txt') } },
      { name: 'bash', input: { command: 'cat plans/keys.txt', description: 'Show the keys' } },
      {
        name: 'bash',
        input: { command: 'printenv SECRET_FOR_E2E', description: 'Print a variable' },
      },
    ]);
    configure(env.home, model.baseUrl);
    const run = await opencodeRun(opencode, env, 'look at the settings', {
      SECRET_FOR_E2E: 'sk-live-123',
    });
    expect(run.code, run.stderr).toBe(0);
    const [read, cat, printenv] = toolResults(model);
    expect(read?.content).toContain('KEY=[redacted]');
    expect(cat?.content).toContain('KEY=[redacted]');
    expect(printenv?.content).toContain('environment dumps stay private');
    expect(printenv?.content).toContain('"blocked_by_extension":true');
    // Not in any request the model got.
    expect(JSON.stringify(model.requests)).not.toContain('sk-live-123');
    expect(openTurns(env.hermesHome)).toEqual([]);
  });

  it('fails closed at a tool result: a hook process that fails there withholds the result from the model', async () => {
    const env = await setup();
    write(env.project, { 'plans/keys.txt': 'KEY=sk-live-123\n' });
    // A hook that answers every event but fails at PostToolUse, as a crashing hermes would.
    const hook = join(env.home, 'failing-hook.mjs');
    write(env.home, {
      'failing-hook.mjs': `let input = '';
process.stdin.on('data', (chunk) => { input += chunk; });
process.stdin.on('end', () => {
  if (JSON.parse(input).hook_event_name === 'PostToolUse') { console.error('crashed'); process.exit(1); }
  process.stdout.write('{}');
});
`,
      '.config/opencode/plugins/hermes-extensions.js': pluginFileText([process.execPath, hook]),
    });
    const model = await startFakeMessages([
      { name: 'read', input: { filePath: join(env.project, 'plans/keys.txt') } },
    ]);
    configure(env.home, model.baseUrl);
    const run = await opencodeRun(opencode, env, 'look at the keys');
    expect(run.code, run.stderr).toBe(0);
    const [read] = toolResults(model);
    expect(read?.content).toContain("Hermes could not check this tool's result, so it is withheld");
    expect(read?.content).toContain('ended with exit code 1');
    expect(JSON.stringify(model.requests)).not.toContain('sk-live-123');
  });

  it('a subagent’s calls (the task tool) are judged as calls of its parent’s turn, told apart by agent', async () => {
    const env = await setup();
    // With a plan, workflow-guard lets the task tool through (before one, it refuses a tool it
    // does not know); this extension refuses a call that would write a secret, naming its agent.
    write(env.project, { 'plans/active/plan.md': '# Plan\n' });
    write(env.hermesHome, {
      'extensions/no-secret.ts': `import { block, defineExtension } from 'hermes-extensions';
export default defineExtension({ name: 'no-secret', setup(hermes) {
  hermes.on('intercept_tool_call', (e) => e.toolName !== 'task' && JSON.stringify(e.toolArgs).includes('secret')
    ? block('no secrets (asked by ' + (e.agent?.id ?? 'the main agent') + ')') : undefined);
} });
`,
    });
    const marker = 'SUBAGENT-TASK-0c1d';
    const secret = join(env.project, 'plans/secret.md');
    const model = await startFakeMessages(
      [
        {
          name: 'task',
          input: {
            description: 'Write it',
            prompt: `${marker} write it down`,
            subagent_type: 'general',
          },
        },
      ],
      { marker, script: [{ name: 'write', input: { filePath: secret, content: 'the secret' } }] },
    );
    configure(env.home, model.baseUrl);
    const run = await opencodeRun(opencode, env, 'delegate the notes');
    expect(run.code, run.stderr).toBe(0);
    expect(existsSync(secret)).toBe(false);
    const told = JSON.stringify(model.subagentRequests.at(-1)?.messages);
    expect(told).toMatch(/no secrets \(asked by ses_\w+\)/);
    expect(openTurns(env.hermesHome)).toEqual([]);
  });

  it('fails closed when hermes is missing: the prompt is refused before any model request, saying why', async () => {
    const env = await setup();
    // The plugin as install writes it, for a Node.js that has since been removed.
    const gone = join(env.home, 'removed-node', 'bin', 'node');
    write(env.home, {
      '.config/opencode/plugins/hermes-extensions.js': pluginFileText([
        gone,
        join(env.home, 'bin/hermes.js'),
        'hook',
        'opencode',
      ]),
    });
    const model = await startFakeMessages([
      {
        name: 'edit',
        input: { filePath: join(env.project, 'src/app.ts'), oldString: 'the app', newString: 'x' },
      },
    ]);
    configure(env.home, model.baseUrl);
    const run = await opencodeRun(opencode, env, 'fix the login bug');
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain(
      `Hermes could not check this prompt, so it is blocked: ${gone} is missing`,
    );
    expect(model.requests).toEqual([]);
    expect(readFileSync(join(env.project, 'src/app.ts'), 'utf8')).toBe(APP);
    expect(openTurns(env.hermesHome)).toEqual([]);
  });

  describe('with the hook daemon', () => {
    let daemonEnv: Record<string, string | undefined> | undefined;
    afterEach(async () => {
      if (daemonEnv) await runHermes(['daemon', 'stop', '--all'], daemonEnv);
      daemonEnv = undefined;
    });

    it('the plugin’s hook processes are answered by the warm daemon', async () => {
      const env = await setup();
      daemonEnv = {
        HERMES_HOME: env.hermesHome,
        HERMES_DAEMON: undefined,
        HERMES_DAEMON_DIR: tree(),
        // The hooks run in OpenCode's environment here, and its config and data homes place
        // protected ground: their daemon is keyed on them (src/host/daemon/protocol.ts).
        XDG_CONFIG_HOME: join(env.home, '.config'),
        XDG_DATA_HOME: join(env.home, '.local/share'),
      };
      const hooksEnv = daemonEnv;
      const app = join(env.project, 'src/app.ts');
      const refused = async () => {
        const model = await startFakeMessages([
          { name: 'edit', input: { filePath: app, oldString: 'the app', newString: 'fixed' } },
        ]);
        configure(env.home, model.baseUrl);
        const run = await opencodeRun(opencode, env, 'fix the login bug', hooksEnv);
        expect(run.code, run.stderr).toBe(0);
        expect(readFileSync(app, 'utf8')).toBe(APP);
        expect(toolResults(model)[0]?.content).toMatch(/Blocked by workflow-guard/);
        expect(openTurns(env.hermesHome)).toEqual([]);
      };
      // The first hook answers in-process and starts the daemon for the next ones.
      await refused();
      await waitForDaemon(hooksEnv);
      const before = (await daemonStatus(hooksEnv)).requests;
      await refused();
      // The prompt, the call, its outcome and the Stop went through the daemon.
      expect((await daemonStatus(hooksEnv)).requests - before).toBeGreaterThanOrEqual(3);
    }, 150_000);
  });
});
