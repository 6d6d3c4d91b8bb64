import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tree, tsExtension } from '../support/fixtures.js';
import { type Answer, built, bin as hermesBin, root, runProcess } from '../support/run-bin.js';
import { closeLoopbackServers } from './loopback.js';

/**
 * Tests of an agent's own command line, from test/real-agents (installed by .ci/run or
 * `npm run setup:agents`). In CI a missing agent fails, unless .ci/run reported that it could
 * not install the agents (`HERMES_E2E_AGENTS=unavailable`); elsewhere the tests are skipped,
 * with a note. `body` gets the path of the agent's executable.
 */
export function describeRealAgent(
  bin: 'codex' | 'claude' | 'opencode',
  title: string,
  body: (executable: string) => void,
): void {
  const executable = join(root, 'test/real-agents/node_modules/.bin', bin);
  const installed = existsSync(executable);
  // In CI the agents must be there, unless .ci/run said it could not install them.
  const required = Boolean(process.env.CI) && process.env.HERMES_E2E_AGENTS !== 'unavailable';
  if (!installed && !required)
    console.warn(`test/e2e: ${bin} is not installed, its tests are skipped (npm run setup:agents)`);
  describe.runIf(built && (installed || required))(title, () => {
    afterEach(closeLoopbackServers);
    it('is installed where CI runs', () => {
      expect(installed, 'test/real-agents is not installed: run npm run setup:agents').toBe(true);
    });
    body(executable);
  });
}

/**
 * A project and a Hermes home that loads workflow-guard (and the other shipped extensions named),
 * as a user would set them up.
 */
export function guardedProject(alsoShipped: string[] = []) {
  const paths = ['workflow-guard', ...alsoShipped].map((name) =>
    JSON.stringify(join(root, 'extensions', name)),
  );
  return {
    project: tree({ '.git/HEAD': 'ref: refs/heads/main\n', 'src/.keep': '' }),
    hermesHome: tree({ 'config.yaml': `extensions:\n  paths: [${paths.join(', ')}]\n` }),
  };
}

/** A `before_llm_call` extension that adds a reminder, numbered by the loop's iteration. */
export const reminderExtension = tsExtension(
  'reminder',
  "hermes.on('before_llm_call', (e) => injectSystem('E2E-REMINDER at iteration ' + e.iteration));",
  "import { injectSystem } from 'hermes-extensions';",
);

/**
 * A transform_final_answer gate that does not accept the turn's first answer: the agent must go on
 * with the reason, and the count in the turn's state must reach its next `Stop`.
 */
export const secondAnswerGate = tsExtension(
  'second-answer',
  `hermes.on('transform_final_answer', (e) => {
    e.state.answers = ((e.state.answers as number | undefined) ?? 0) + 1;
    return e.state.answers === 1 ? block('E2E-GATE: check your work once more') : undefined;
  });`,
);

/** The lines audit-log wrote in the project (its default path), parsed. */
export function auditLines(project: string): Array<Record<string, unknown>> {
  const file = join(project, '.hermes/audit/audit.jsonl');
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));
}

/** Turn-state files left in the Hermes home (none once the agent's turn has ended). */
export function openTurns(hermesHome: string): string[] {
  const dir = join(hermesHome, 'turns');
  return existsSync(dir) ? readdirSync(dir).filter((file) => file.endsWith('.json')) : [];
}

/**
 * Runs an agent's command line to its end, in a clean environment; stdin closed, as in CI. Its
 * hooks answer in-process (`HERMES_DAEMON` as the tests have it) unless `env` says otherwise (a
 * key set to `undefined` is left out).
 */
export function runAgent(
  command: string,
  args: string[],
  options: { cwd: string; env: Record<string, string | undefined>; timeout?: number },
): Promise<Answer> {
  return runProcess(command, args, {
    cwd: options.cwd,
    env: cleanEnv(options.env),
    timeout: options.timeout ?? 60_000,
  });
}

/** `hermes ARGS` in the same clean environment an agent's hook gets from runAgent. */
export function runHermes(
  args: string[],
  env: Record<string, string | undefined>,
): Promise<Answer> {
  return runProcess(process.execPath, [hermesBin, ...args], { env: cleanEnv(env) });
}

function cleanEnv(env: Record<string, string | undefined>): Record<string, string | undefined> {
  const clean = Object.fromEntries(Object.keys(process.env).map((key) => [key, undefined]));
  return {
    ...clean,
    PATH: process.env.PATH ?? '',
    HERMES_DAEMON: process.env.HERMES_DAEMON,
    ...env,
  };
}

/** The hook daemons' status in `env` (`hermes daemon status --json`): this environment's, if it runs. */
export async function daemonStatus(
  env: Record<string, string | undefined>,
): Promise<{ running: boolean; requests: number }> {
  const answer = await runHermes(['daemon', 'status', '--json'], env);
  const mine = (
    JSON.parse(answer.stdout || '[]') as Array<{ thisEnvironment: boolean; requests: number }>
  ).find((status) => status.thisEnvironment);
  return { running: answer.code === 0 && mine !== undefined, requests: mine?.requests ?? 0 };
}

/** Waits until this environment's daemon answers `status` (a hook starts it in the background). */
export async function waitForDaemon(env: Record<string, string | undefined>): Promise<void> {
  for (let waited = 0; waited < 20_000; waited += 250) {
    if ((await daemonStatus(env)).running) return;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error('no hook daemon started within 20 s');
}

/**
 * The shell tool as extensions name it from every agent: Hermes' `terminal` too, under its shell
 * hooks and its plugin alike (docs/hermes-agent.md, Hermes' tools as extensions see them).
 */
const SHELL_TOOLS = "{ tools: ['bash'] }";

/** Rewrites shell commands that would write a `.tmp` file to write the `.md` one instead. */
export const noTmpExtension = tsExtension(
  'no-tmp',
  `hermes.on('intercept_tool_call', (e) => String(e.toolArgs.command).includes('.tmp')
    ? { action: 'rewrite', value: { ...e.toolArgs, command: String(e.toolArgs.command).replaceAll('.tmp', '.md') } }
    : undefined, ${SHELL_TOOLS});`,
);

/** Asks a person about every shell call that writes a file (`ask`). */
export const askingExtension = tsExtension(
  'cautious',
  `hermes.on('intercept_tool_call', (e) => String(e.toolArgs.command).includes('>')
    ? ask('shell writes are reviewed')
    : undefined, ${SHELL_TOOLS});`,
  `import { ask } from 'hermes-extensions';`,
);
