import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { python } from '../hermes-agent/python.js';
import { tree } from '../support/fixtures.js';
import { built, type Answer as Run, root, runBin } from '../support/run-bin.js';

/** The real bin with its own $HERMES_HOME and $HOME (the user's agent settings stay out). */
function hermes(home: string, ...args: string[]): Promise<Run> {
  return runBin(args, { HERMES_HOME: home, HOME: home, CODEX_HOME: '', HERMES_TRUST_PROJECT: '' });
}

/**
 * What the plugin's registration record (clients/hermes-agent-plugin/registration_record.py)
 * writes when Hermes loads it, run here by python3 as the plugin runs it: outside Hermes, so with
 * no Hermes version to read.
 */
function recordRegistration(home: string, hooks: string[], middleware: string[]) {
  const program = [
    'import sys',
    `sys.path.insert(0, ${JSON.stringify(join(root, 'clients/hermes-agent-plugin'))})`,
    'import json, registration_record',
    'class Ctx:',
    '    def register_middleware(self, kind, callback): pass',
    'print(registration_record.record(Ctx(), json.loads(sys.argv[1]), json.loads(sys.argv[2])))',
  ].join('\n');
  return execFileSync(
    'python3',
    ['-c', program, JSON.stringify(hooks), JSON.stringify(middleware)],
    { encoding: 'utf8', env: { PATH: process.env.PATH ?? '', HERMES_HOME: home, HOME: home } },
  ).trim();
}

const HOOKS = ['pre_llm_call', 'pre_tool_call', 'post_tool_call', 'transform_tool_result'];
const MIDDLEWARE = ['llm_execution', 'llm_request', 'tool_execution', 'tool_request'];

describe.runIf(built)('doctor: which form runs in the Hermes agent', { timeout: 60_000 }, () => {
  it('with the shell hooks: says so, and what each hook point becomes there', async () => {
    const home = tree({ 'config.yaml': 'hooks_auto_accept: true\n' });
    const project = tree({ '.git/HEAD': '' });
    expect((await hermes(home, 'hook', 'install', 'hermes-agent')).code).toBe(0);
    const run = await hermes(home, 'extensions', 'doctor', '--cwd', project);
    expect(run.stdout).toMatch(/i Hermes agent: runs the shell hooks/);
    expect(run.stdout).toMatch(/transform_user_input → pre_llm_call/);
    expect(run.stdout).toMatch(/before_llm_call → pre_llm_call, once per turn/);
    expect(run.stdout).toMatch(/intercept_tool_call → pre_tool_call: .*an ask is a block/);
    expect(run.stdout).toMatch(/transform_tool_result → not run/);
    expect(run.stdout).toMatch(/transform_final_answer → not run/);
  });

  it.runIf(python)(
    'with the plugin: until Hermes has loaded it, says to start Hermes once; then the form Hermes runs it in and what each hook point becomes',
    async () => {
      const home = tree({ 'config.yaml': 'model: m\n' });
      const project = tree({ '.git/HEAD': '' });
      expect((await hermes(home, 'hook', 'install', 'hermes-agent', '--plugin')).code).toBe(0);
      const unloaded = await hermes(home, 'extensions', 'doctor', '--cwd', project);
      expect(unloaded.stdout).toMatch(
        /! Hermes agent: .*has not loaded the plugin since it was installed.*start Hermes once/,
      );

      const file = recordRegistration(home, HOOKS, []);
      expect(file).toBe(join(home, 'plugins', 'hermes-extensions', 'registered.json'));
      expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject({
        schema: 1,
        hermes_version: null,
        form: 'hooks',
        hooks: HOOKS.toSorted(),
        middleware: [],
        recorded_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
      });
      const hooksOnly = await hermes(home, 'extensions', 'doctor', '--cwd', project);
      expect(hooksOnly.stdout).toMatch(
        /i Hermes agent: runs the plugin with hooks only \(Hermes of an unknown version, loaded .*\)/,
      );
      expect(hooksOnly.stdout).toMatch(/before_llm_call → pre_llm_call, once per turn/);
      expect(hooksOnly.stdout).toMatch(/intercept_tool_call → pre_tool_call: .*merged over/);
      expect(hooksOnly.stdout).toMatch(/transform_tool_result → transform_tool_result/);

      recordRegistration(home, [...HOOKS, 'transform_llm_output'], MIDDLEWARE);
      const middleware = await hermes(home, 'extensions', 'doctor', '--cwd', project);
      expect(middleware.stdout).toMatch(/i Hermes agent: runs the plugin with middleware/);
      expect(middleware.stdout).toMatch(
        /before_llm_call → llm_request, before every model request/,
      );
      expect(middleware.stdout).toMatch(/intercept_tool_call → .*tool_request/);
      expect(middleware.stdout).toMatch(/transform_tool_result → tool_execution/);
      expect(middleware.stdout).toMatch(/transform_final_answer → transform_llm_output/);

      // A record this package cannot read is no answer: Hermes is to write it again.
      writeFileSync(file, '{"schema": 99}');
      const unknown = await hermes(home, 'extensions', 'doctor', '--cwd', project);
      expect(unknown.stdout).toMatch(/! Hermes agent: .*start Hermes once/);
      // Installing again removes the record: the plugin installed now has not been loaded.
      recordRegistration(home, HOOKS, MIDDLEWARE);
      expect((await hermes(home, 'hook', 'install', 'hermes-agent', '--plugin')).code).toBe(0);
      const reinstalled = await hermes(home, 'extensions', 'doctor', '--cwd', project);
      expect(reinstalled.stdout).toMatch(/has not loaded the plugin since it was installed/);
    },
  );

  it.runIf(python)(
    'the record is never written into a plugin folder linked to another (the package’s own, shared by every home linked to it)',
    () => {
      const home = tree();
      const target = tree();
      mkdirSync(join(home, 'plugins'));
      symlinkSync(target, join(home, 'plugins', 'hermes-extensions'));
      expect(recordRegistration(home, HOOKS, [])).toBe('None');
      expect(readdirSync(target)).toEqual([]);
    },
  );
});
