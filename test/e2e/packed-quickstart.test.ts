import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  asDevDependency,
  asPeerDependency,
  installTarball,
  newProject,
  npm,
  packPackage,
  removeFolder,
  tempFolder,
} from '../support/packed-package.js';
import { type Answer, built, runProcess } from '../support/run-bin.js';

/**
 * The quickstart, from the packed package: a fresh project installs the tarball (and the AI SDK,
 * as a user of the adapter would), scaffolds a guard, writes it the README's way (`when` on the
 * path), trusts it — and the same write under `src/` is then blocked, with the guard's reason, by
 * `hermes extensions test`, the AI SDK adapter, Claude Code's command hook and the bridge.
 */

const REASON = 'src/ is written by people only: propose the change instead';

const GUARD = `import { block, defineExtension, P } from 'hermes-extensions';

export default defineExtension({
  name: 'src-guard',
  description: 'No writes under src/',
  setup(hermes) {
    hermes.on('intercept_tool_call', () => block(${JSON.stringify(REASON)}), {
      phase: 'validate',
      when: {
        toolName: P.union('write', 'edit'),
        toolArgs: { path: P.string.startsWith('src/') },
      },
    });
  },
});
`;

/** The AI SDK loop over a model that writes src/a.ts once, then answers; prints what happened. */
const AI_SDK_SCRIPT = `import { generateText, jsonSchema, stepCountIs, tool } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { loadRuntime } from 'hermes-extensions';
import { withHermes } from 'hermes-extensions/ai-sdk';

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 1, text: 1, reasoning: 0 },
};
const steps = [
  {
    content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'write', input: JSON.stringify({ path: 'src/a.ts', content: 'x' }) }],
    finishReason: { unified: 'tool-calls', raw: undefined },
    usage,
    warnings: [],
  },
  { content: [{ type: 'text', text: 'done' }], finishReason: { unified: 'stop', raw: undefined }, usage, warnings: [] },
];
const model = new MockLanguageModelV3({ doGenerate: async () => steps.shift() });
const written = [];
const tools = {
  write: tool({
    inputSchema: jsonSchema({ type: 'object', properties: { path: { type: 'string' }, content: { type: 'string' } } }),
    execute: async ({ path }) => { written.push(path); return 'written'; },
  }),
};
const runtime = await loadRuntime({ cwd: process.cwd() });
const report = await runtime.runTurn({ sessionId: 'ai-sdk' }, async (turn) => {
  const call = await withHermes(turn, { prompt: 'add src/a.ts', model, tools });
  if (call.blocked) return { blockedPrompt: call.message };
  const result = await generateText({ model: call.model, tools: call.tools, prompt: call.prompt, stopWhen: stepCountIs(3) });
  return { written, content: result.steps.flatMap((step) => step.content) };
});
await runtime.close();
console.log(JSON.stringify(report));
`;

describe.runIf(built)('the quickstart, in a project that installed the packed tarball', () => {
  let folder: string | undefined;
  let project: string;
  let home: string;
  let installed: Answer;
  /** `npx hermes …` in the project, as its user runs it, with its own $HERMES_HOME. */
  const npxHermes = (args: string[], stdin = '') =>
    runProcess('npx', ['--no-install', 'hermes', ...args], {
      cwd: project,
      env: { HERMES_HOME: home, HERMES_TRUST_PROJECT: undefined },
      stdin,
      timeout: 120_000,
    });

  beforeAll(async () => {
    folder = tempFolder('hermes-packed-');
    const tarball = await packPackage(folder);
    project = await newProject(join(folder, 'my-agent'));
    home = join(folder, 'hermes-home');
    // The tarball stays until the end: `npm i -D rolldown` later reinstalls from the lock file.
    installed = await installTarball(project, tarball, [asDevDependency('ai')]);
  }, 600_000);

  afterAll(() => removeFolder(folder));

  it('installs without running a build or a script, and without npm warning of install scripts', () => {
    expect(installed.code, installed.stderr).toBe(0);
    const output = `${installed.stdout}\n${installed.stderr}`;
    // npm's info log names each script it runs (`npm info run <package> <event> …`).
    expect(output).not.toMatch(/npm info run /);
    expect(output).not.toMatch(/install-scripts|allowScripts/);
    const manifest = JSON.parse(
      readFileSync(join(project, 'node_modules/hermes-extensions/package.json'), 'utf8'),
    ) as { scripts: Record<string, string> };
    for (const event of ['preinstall', 'install', 'postinstall', 'prepare']) {
      expect(manifest.scripts[event], event).toBeUndefined();
    }
    // OpenTelemetry is the otel extension's, installed by the user who enables it; rolldown is for
    // project code and the sandbox runtime for workflow-guard's sandbox, installed on demand too.
    for (const name of [
      '@opentelemetry/sdk-trace-base',
      'rolldown',
      '@anthropic-ai/sandbox-runtime',
    ]) {
      expect(existsSync(join(project, 'node_modules', name)), name).toBe(false);
    }
  });

  it('says, when the otel extension is enabled there, what to install and where', async () => {
    expect(installed.code, installed.stderr).toBe(0);
    const otelHome = join(folder as string, 'otel-home');
    const otel = join(project, 'node_modules/hermes-extensions/extensions/otel');
    mkdirSync(otelHome, { recursive: true });
    writeFileSync(join(otelHome, 'config.yaml'), `extensions:\n  paths:\n    - ${otel}\n`);
    const list = await runProcess(
      'npx',
      ['--no-install', 'hermes', 'extensions', 'list', '--json'],
      {
        cwd: project,
        env: { HERMES_HOME: otelHome, HERMES_TRUST_PROJECT: undefined },
        timeout: 120_000,
      },
    );
    const otelInfo = (
      JSON.parse(list.stdout) as Array<{ name: string; status: string; reason: string }>
    ).find((info) => info.name === 'otel');
    expect(otelInfo).toMatchObject({ status: 'error', code: 'LOAD_FAILED' });
    expect(otelInfo?.reason).toMatch(
      new RegExp(
        `OpenTelemetry is not installed: run \`npm install @opentelemetry/api@\\S+ .*\` in ${project}`,
      ),
    );
  });

  it('ends with a guard that blocks the same write in `test`, the AI SDK, `hook claude-code` and the bridge', async () => {
    expect(installed.code, installed.stderr).toBe(0);

    // The scaffold, then the guard written in its place; rolldown, as init and the README say;
    // then trust.
    const init = await npxHermes(['extensions', 'init', 'src-guard', '--project']);
    expect(init.code, init.stderr).toBe(0);
    const rolldown = asPeerDependency('rolldown');
    expect(init.stdout).toContain(
      `Before \`npx hermes extensions trust\`, install rolldown (it bundles project code): npm i -D ${rolldown}`,
    );
    const guardDir = join(project, '.hermes/extensions/src-guard');
    writeFileSync(join(guardDir, 'index.ts'), GUARD);
    const untrusted = await npxHermes(['extensions', 'trust', '--yes']);
    expect(untrusted.code).toBe(1);
    expect(untrusted.stderr).toContain(
      `rolldown is not installed: run \`npm i -D ${rolldown}\` in ${project}`,
    );
    const added = await npm(project, [
      'install',
      '-D',
      rolldown,
      '--prefer-offline',
      '--no-audit',
      '--no-fund',
    ]);
    expect(added.code, added.stderr).toBe(0);
    const trust = await npxHermes(['extensions', 'trust', '--yes']);
    expect(trust.code, trust.stderr).toBe(0);

    // 1. hermes extensions test
    const tested = await npxHermes([
      'extensions',
      'test',
      'intercept_tool_call',
      '--input',
      JSON.stringify({ toolName: 'write', toolArgs: { path: 'src/a.ts', content: 'x' } }),
    ]);
    expect(tested.code, tested.stderr).toBe(1);
    expect(tested.stdout).toContain('BLOCKED by src-guard');
    expect(tested.stdout).toContain(REASON);

    // 2. The AI SDK: the tool does not run, and the model is told why.
    writeFileSync(join(project, 'ai-sdk.mjs'), AI_SDK_SCRIPT);
    const sdk = await runProcess(process.execPath, ['ai-sdk.mjs'], {
      cwd: project,
      env: { HERMES_HOME: home, HERMES_TRUST_PROJECT: undefined },
      timeout: 120_000,
    });
    expect(sdk.code, sdk.stderr).toBe(0);
    const report = JSON.parse(sdk.stdout) as { written: string[]; content: unknown[] };
    expect(report.written).toEqual([]);
    expect(JSON.stringify(report.content)).toContain(REASON);

    // 3. The bridge (`hermes extensions serve --stdio`), over JSON-RPC.
    const bridge = await bridgeSession(project, home);
    try {
      await bridge.call('initialize', {});
      const { turn_id } = (await bridge.call('turn/start', { session_id: 'bridge' })) as {
        turn_id: string;
      };
      const outcome = (await bridge.call('intercept_tool_call', {
        turn_id,
        tool_name: 'write',
        tool_args: { path: 'src/a.ts', content: 'x' },
      })) as { blocked: boolean; message: string; blocked_by: string };
      expect(outcome).toMatchObject({ blocked: true, blocked_by: 'src-guard' });
      expect(outcome.message).toContain(REASON);
      await bridge.call('turn/end', { turn_id });
    } finally {
      await bridge.close();
    }

    // 4. Claude Code's PreToolUse, with the absolute path Claude Code always sends.
    const hook = await npxHermes(
      ['hook', 'claude-code'],
      JSON.stringify({
        session_id: 'cc-session',
        transcript_path: '/dev/null',
        cwd: project,
        permission_mode: 'default',
        hook_event_name: 'PreToolUse',
        tool_name: 'Write',
        tool_use_id: 'toolu_1',
        tool_input: { file_path: join(project, 'src/a.ts'), content: 'x' },
      }),
    );
    expect(hook.code, hook.stderr).toBe(0);
    expect(hook.stdout, 'the hook answered nothing: Claude Code would run the write').not.toBe('');
    const answer = JSON.parse(hook.stdout).hookSpecificOutput;
    expect(answer).toMatchObject({ hookEventName: 'PreToolUse', permissionDecision: 'deny' });
    expect(answer.permissionDecisionReason).toContain(REASON);
  });
});

/** `npx hermes extensions serve --stdio` in `project`: one request at a time, each its answer. */
async function bridgeSession(project: string, home: string) {
  const child = spawn('npx', ['--no-install', 'hermes', 'extensions', 'serve', '--stdio'], {
    cwd: project,
    env: { ...process.env, HERMES_HOME: home, HERMES_TRUST_PROJECT: '' },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let id = 0;
  return {
    async call(method: string, params: unknown): Promise<unknown> {
      id += 1;
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
      const next = await lines.next();
      if (next.done) throw new Error(`the bridge exited before answering ${method}: ${stderr}`);
      const message = JSON.parse(next.value) as { id: number; result?: unknown; error?: unknown };
      if (message.id !== id || message.error !== undefined) {
        throw new Error(`${method}: unexpected answer ${next.value}`);
      }
      return message.result;
    },
    async close() {
      child.stdin.end();
      await exited;
    },
  };
}
