import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tree, tsExtension } from '../support/fixtures.js';
import { type Answer, built, root, runProcess } from '../support/run-bin.js';
import { closeLoopbackServers } from './loopback.js';

/**
 * Tests of an agent's own command line, from test/real-agents (installed by .ci/run or
 * `npm run setup:agents`). In CI a missing agent fails, unless .ci/run reported that it could
 * not install the agents (`HERMES_E2E_AGENTS=unavailable`); elsewhere the tests are skipped,
 * with a note. `body` gets the path of the agent's executable.
 */
export function describeRealAgent(
  bin: 'codex' | 'claude',
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

/** A project and a Hermes home that loads workflow-guard, as a user would set them up. */
export function guardedProject() {
  return {
    project: tree({ '.git/HEAD': 'ref: refs/heads/main\n', 'src/.keep': '' }),
    hermesHome: tree({
      'config.yaml': `extensions:\n  paths: [${JSON.stringify(join(root, 'extensions/workflow-guard'))}]\n`,
    }),
  };
}

/** Turn-state files left in the Hermes home (none once the agent's turn has ended). */
export function openTurns(hermesHome: string): string[] {
  const dir = join(hermesHome, 'turns');
  return existsSync(dir) ? readdirSync(dir).filter((file) => file.endsWith('.json')) : [];
}

/** Runs an agent's command line to its end, in a clean environment; stdin closed, as in CI. */
export function runAgent(
  command: string,
  args: string[],
  options: { cwd: string; env: Record<string, string> },
): Promise<Answer> {
  const clean = Object.fromEntries(Object.keys(process.env).map((key) => [key, undefined]));
  return runProcess(command, args, {
    cwd: options.cwd,
    env: { ...clean, PATH: process.env.PATH ?? '', ...options.env },
    timeout: 60_000,
  });
}

/** Rewrites shell commands that would write a `.tmp` file to write the `.md` one instead. */
export const noTmpExtension = tsExtension(
  'no-tmp',
  `hermes.on('intercept_tool_call', (e) => String(e.toolArgs.command).includes('.tmp')
    ? { action: 'rewrite', value: { ...e.toolArgs, command: String(e.toolArgs.command).replaceAll('.tmp', '.md') } }
    : undefined, { tools: ['bash'] });`,
);
