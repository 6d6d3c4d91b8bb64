import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { createRuntime, type ExtensionDefinition, type HermesApi } from 'hermes-extensions';
import { groundSandboxAvailability } from 'hermes-extensions/policy';
import { memoryLogger } from 'hermes-extensions/testing';
import { beforeEach, describe, expect, it } from 'vitest';
import workflowGuard from '../../extensions/workflow-guard/index.js';
import { tree } from '../support/fixtures.js';
import { ext } from '../support/helpers.js';
import { runShell, sandbox } from '../support/sandbox.js';

/**
 * `hermes.denySandboxRead` (docs/policy.md, Files a sandboxed command may not read): what an
 * extension lists is asked for only when a sandbox is made for a call, is hidden in the
 * protected-ground sandbox and in workflow-guard's (a folder as an empty one), a failure to list
 * refuses the call, and in shadow mode nothing is hidden.
 */
beforeEach(() => {
  const user = tree({});
  mkdirSync(join(user, '.hermes'));
  process.env.HOME = user;
  process.env.HERMES_HOME = join(user, '.hermes');
});

const LIST = `node -e "const fs = require('fs'); for (const p of ['vault', 'vault/key.txt', 'open.txt']) { try { console.log(p, JSON.stringify(fs.statSync(p).isDirectory() ? fs.readdirSync(p) : fs.readFileSync(p, 'utf8'))); } catch (e) { console.log(p, e.code); } }"`;

function project(planned = false) {
  return tree({
    '.git/HEAD': '',
    'vault/key.txt': 'the key\n',
    'open.txt': 'open\n',
    ...(planned ? { 'plans/active/plan.md': '# Plan\n' } : {}),
  });
}

async function decide(
  root: string,
  extensions: ExtensionDefinition[],
  command: string,
  config: Record<string, unknown> = {},
) {
  const runtime = await createRuntime({
    extensions: extensions as ExtensionDefinition<Record<string, unknown>>[],
    cwd: root,
    config,
    logger: memoryLogger(),
  });
  return runtime.runTurn({ sessionId: 's' }, (turn) =>
    turn.interceptToolCall({ toolName: 'Bash', toolArgs: { command } }),
  );
}

const hiding = (paths: (root: string) => string[], asked = { count: 0 }) =>
  ext('hider', (hermes: HermesApi) => {
    hermes.denySandboxRead(() => {
      asked.count++;
      return paths(hermes.projectRoot);
    });
  });

describe.runIf(groundSandboxAvailability().available)('hermes.denySandboxRead', () => {
  it('is not asked for a call that runs as it was sent', async () => {
    const root = project();
    const asked = { count: 0 };
    const outcome = await decide(root, [hiding((r) => [join(r, 'vault')], asked)], 'ls -la');
    expect(outcome).toMatchObject({ blocked: false, changed: false });
    expect(asked.count).toBe(0);
  });

  it('a function that throws refuses the call the sandbox was for, naming the extension', async () => {
    const root = project();
    const failing = ext('hider', (hermes) => {
      hermes.denySandboxRead(() => {
        throw new Error('the disk is gone');
      });
    });
    const outcome = await decide(root, [failing], 'node build.js');
    expect(outcome.blocked).toBe(true);
    if (outcome.blocked) {
      expect(outcome.message).toContain('hider could not say which files');
      expect(outcome.message).toContain('the disk is gone');
    }
  });

  it('a relative path refuses the call', async () => {
    const root = project();
    const outcome = await decide(root, [hiding(() => ['vault'])], 'node build.js');
    expect(outcome.blocked).toBe(true);
    if (outcome.blocked) expect(outcome.message).toContain('not an absolute path');
  });

  it('in shadow mode nothing is hidden', async () => {
    const root = project();
    const asked = { count: 0 };
    const outcome = await decide(root, [hiding((r) => [join(r, 'vault')], asked)], LIST, {
      extensions: { hider: { mode: 'shadow' } },
    });
    if (outcome.blocked) throw new Error(outcome.message);
    expect(asked.count).toBe(0);
    expect(runShell(String(outcome.value.command), root).stdout).toContain(
      'vault/key.txt "the key\\n"',
    );
  });

  it('may only be called in setup', async () => {
    let late: HermesApi | undefined;
    const keep = ext('late', (hermes) => {
      late = hermes;
    });
    await decide(project(), [keep], 'ls');
    expect(() => late?.denySandboxRead(() => [])).toThrow(/after setup finished/);
  });

  const setups = [
    ['the protected-ground sandbox', [], false],
    ['the protected-ground sandbox after a plan', [workflowGuard], true],
    ...(sandbox.available ? [["workflow-guard's sandbox", [workflowGuard], false] as const] : []),
  ] as const;
  for (const [name, others, planned] of setups) {
    it(`${name}: a folder lists nothing (what it holds is not found), the rest reads`, async () => {
      const root = project(planned);
      const outcome = await decide(root, [hiding((r) => [join(r, 'vault')]), ...others], `${LIST}`);
      if (outcome.blocked) throw new Error(outcome.message);
      expect(outcome.changed).toBe(true);
      const run = runShell(String(outcome.value.command), root);
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).toContain('vault []');
      expect(run.stdout).toContain('vault/key.txt ENOENT');
      expect(run.stdout).toContain('open.txt "open\\n"');
    });
  }
});
