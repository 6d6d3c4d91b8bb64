import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tree, write } from '../support/fixtures.js';
import { type Answer, built, root } from '../support/run-bin.js';
import {
  type ChatMessage,
  type ChatRequest,
  type FakeChatCompletions,
  toolNames,
} from './fake-chat-completions-server.js';
import { closeLoopbackServers } from './loopback.js';
import { guardedProject, runAgent, runHermes } from './setup.js';

/** The Hermes agent's own `hermes`, as `npm run setup:hermes` installs it (a Python venv). */
export const hermesAgent = join(root, 'test/real-agents/hermes-venv/bin/hermes');

/**
 * Tests of the real Hermes agent's command line. Where it is not installed they are skipped,
 * saying why: elsewhere than CI, how to install it; in CI, the reason .ci/run gave when it could
 * not (`HERMES_E2E_HERMES_AGENT`). In CI without that reason, a missing agent fails.
 */
export function describeRealHermes(title: string, body: (hermes: string) => void): void {
  const installed = existsSync(hermesAgent);
  const unavailable = process.env.HERMES_E2E_HERMES_AGENT;
  const required = Boolean(process.env.CI) && unavailable === undefined;
  if (!installed && !required) {
    console.warn(
      `test/e2e: the Hermes agent is not installed, its tests are skipped: ${unavailable ?? 'npm run setup:hermes installs it (Python 3.11 to 3.13 with venv and pip)'}`,
    );
  }
  describe.runIf(built && (installed || required))(title, () => {
    afterEach(closeLoopbackServers);
    afterEach(stopDaemons);
    it('is installed where CI runs', () => {
      expect(installed, 'the Hermes agent is not installed: run npm run setup:hermes').toBe(true);
    });
    body(hermesAgent);
  });
}

export interface HermesEnv {
  project: string;
  hermesHome: string;
  home: string;
  /** The hook daemons' folder, for the shell hooks (the plugin keeps a bridge of its own). */
  daemonDir?: string;
}

const daemons: Array<Record<string, string | undefined>> = [];

/** Stops the hook daemons the shell hooks of a test started. */
async function stopDaemons(): Promise<void> {
  for (const env of daemons.splice(0)) await runHermes(['daemon', 'stop', '--all'], env);
}

/**
 * A project and a Hermes home set up as the README's quickstart has it (workflow-guard loaded,
 * from the Hermes home's config.yaml), the extensions named written into the Hermes home, Hermes'
 * model pointed at the scripted server, and this package installed into that Hermes as shell
 * hooks or as its plugin, by `hermes hook install hermes-agent [--plugin]`.
 *
 * The model is a `custom` provider (hermes_cli/runtime_provider.py): an OpenAI-compatible base
 * URL on loopback. Its `context_length` is given, since without it Hermes asks openrouter.ai for
 * the model's metadata (agent/model_metadata.py, get_model_context_length).
 */
export async function hermesSetup(
  model: FakeChatCompletions,
  form: 'shell hooks' | 'plugin',
  extensions: Record<string, string> = {},
): Promise<HermesEnv> {
  const { project, hermesHome } = guardedProject();
  const home = tree();
  const config = readFileSync(join(hermesHome, 'config.yaml'), 'utf8');
  write(hermesHome, {
    'config.yaml': `${config}model:
  provider: custom
  default: e2e-model
  base_url: ${model.baseUrl}
  api_key: e2e-key
  context_length: 200000
`,
  });
  for (const [name, source] of Object.entries(extensions))
    write(hermesHome, { [`extensions/${name}.ts`]: source });
  const installed = await runHermes(
    ['hook', 'install', 'hermes-agent', ...(form === 'plugin' ? ['--plugin'] : [])],
    { HOME: home, HERMES_HOME: hermesHome },
  );
  expect(installed.code, installed.stderr).toBe(0);
  // The shell hooks run a process per event (nine in a turn of three tool calls): as a user's
  // would, they answer from the warm hook daemon (docs/command-hooks.md), in a folder of the test.
  if (form === 'plugin') return { project, hermesHome, home };
  const daemonDir = tree();
  daemons.push({ HOME: home, HERMES_HOME: hermesHome, HERMES_DAEMON_DIR: daemonDir });
  return { project, hermesHome, home, daemonDir };
}

/**
 * One headless prompt: `hermes -z PROMPT` (hermes_cli/oneshot.py) prints the final answer alone
 * and exits. It approves shell hooks only after they are registered at start, so
 * `--accept-hooks` does it (agent/shell_hooks.py: otherwise an unapproved hook is skipped
 * where nobody can be asked).
 */
export function hermesPrompt(hermes: string, env: HermesEnv, prompt: string): Promise<Answer> {
  return runAgent(hermes, ['--accept-hooks', '-z', prompt], {
    cwd: env.project,
    env: {
      HOME: env.home,
      HERMES_HOME: env.hermesHome,
      ...(env.daemonDir && { HERMES_DAEMON: undefined, HERMES_DAEMON_DIR: env.daemonDir }),
    },
  });
}

/**
 * Why a run went as it did, for a failing assertion: Hermes' warnings and errors from its log
 * (`-z` prints nothing but the answer) and every request the model server got.
 */
export function evidence(env: HermesEnv, run: Answer, model?: FakeChatCompletions): string {
  const file = join(env.hermesHome, 'logs/agent.log');
  const log = existsSync(file)
    ? readFileSync(file, 'utf8')
        .split('\n')
        .filter((line) => / (WARNING|ERROR) /.test(line))
        .slice(-20)
        .join('\n')
    : '';
  return [
    `exit ${run.code}`,
    `stdout: ${run.stdout}`,
    `stderr: ${run.stderr}`,
    `agent.log warnings: ${log}`,
    ...(model ? [`model requests: ${shown(model.requests)}`] : []),
  ].join('\n');
}

/**
 * Requests as the model server got them, for a failure's message: each one's messages (Hermes'
 * own long system prompt cut short) and the names of the tools it offered.
 */
export function shown(requests: ChatRequest[]): string {
  return JSON.stringify(
    requests.map((request) => ({
      messages: request.messages.map((message) =>
        message.role === 'system' && typeof message.content === 'string'
          ? {
              ...message,
              content: `${message.content.slice(0, 80)}…${message.content.slice(-300)}`,
            }
          : message,
      ),
      tools: toolNames(request),
    })),
    null,
    1,
  );
}

/** The tool results the model read in the last request it got, by the call's id. */
export function toolResults(model: FakeChatCompletions): Record<string, string> {
  const messages: ChatMessage[] = model.requests.at(-1)?.messages ?? [];
  return Object.fromEntries(
    messages
      .filter((message) => message.role === 'tool')
      .map((message) => [message.tool_call_id ?? '', String(message.content)]),
  );
}

/**
 * The calls whose arguments a hook must change for what runs to be what was judged: a `cd` that
 * Hermes' terminal keeps for the calls after it, then two writes judged as writes under the
 * project's plans/ (allowed before a plan), the second of which noTmpExtension rewrites to write
 * the `.md` file instead of the `.tmp` one.
 */
export const REWRITE_SCRIPT = [
  { name: 'terminal', args: { command: 'cd src' } },
  { name: 'terminal', args: { command: 'echo pinned > plans/notes.md' } },
  { name: 'terminal', args: { command: 'echo fixed > plans/draft.tmp' } },
];

/**
 * What REWRITE_SCRIPT left in the project: unless each command ran as it was judged, a write
 * landed in src/plans/ (where the `cd` left the terminal, not where it was judged) or a `.tmp`
 * file was written although its call was rewritten. A refusal of the calls passes as well.
 */
export function expectRunAsJudged(env: HermesEnv, why: string): void {
  const exists = (path: string) => existsSync(join(env.project, path));
  expect
    .soft(
      exists('src/plans/notes.md'),
      `a command ran in src/, where an earlier cd left the terminal, not in the folder it was judged in\n${why}`,
    )
    .toBe(false);
  expect
    .soft(
      exists('plans/draft.tmp') || exists('src/plans/draft.tmp'),
      `the call intercept_tool_call rewrote ran as the model wrote it\n${why}`,
    )
    .toBe(false);
}
