import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tree, tsExtension } from '../../support/fixtures.js';
import { built, runBin, runHook } from '../../support/run-bin.js';

/** Every command that works in `$HERMES_HOME`, with the arguments it needs. */
const COMMANDS = [
  ['extensions', 'list'],
  ['extensions', 'doctor'],
  ['extensions', 'enable', 'guard'],
  ['extensions', 'disable', 'guard'],
  ['extensions', 'test', 'intercept_tool_call', '--input', '{"toolName":"read","toolArgs":{}}'],
  ['extensions', 'init', 'guard'],
  ['extensions', 'trust', '--yes'],
  ['extensions', 'serve', '--stdio'],
];

function hermes(home: string, args: string[]) {
  const cwd = tree({ '.git/HEAD': '' });
  return runBin([...args, '--cwd', cwd], {
    HERMES_HOME: home,
    HOME: cwd,
    HERMES_TRUST_PROJECT: '',
  });
}

/** One line on stderr, `hermes: …` naming `path`, no stack trace; exit 2. */
function expectOneLineError(run: { code: number; stdout: string; stderr: string }, path: string) {
  expect(run.code, run.stderr).toBe(2);
  expect(run.stderr).toMatch(/^hermes: [^\n]+\n$/);
  expect(run.stderr).toContain(path);
  expect(run.stdout).toBe('');
}

describe.runIf(built)('an unusable $HERMES_HOME', () => {
  it.each(COMMANDS)(
    'is one line naming it, never a stack trace: %s %s',
    async (...args) => {
      const parent = tree({ 'home-is-a-file': 'not a folder' });
      for (const home of [join(parent, 'home-is-a-file'), join(parent, 'home-is-a-file/below')]) {
        const run = await hermes(home, args);
        expectOneLineError(run, home);
        expect(run.stderr).toMatch(/HERMES_HOME/);
      }
    },
    60_000,
  );

  it.each(['claude-code', 'codex'] as const)(
    'refuses a %s tool call naming it, and lets the prompt go on with a message',
    async (agent) => {
      const home = join(tree({ 'home-is-a-file': '' }), 'home-is-a-file');
      const base = { session_id: 's', turn_id: 't1', cwd: tree() };
      const call = await runHook(agent, home, {
        ...base,
        hook_event_name: 'PreToolUse',
        tool_name: 'Bash',
        tool_input: { command: 'ls' },
      });
      const why = `HERMES_HOME ${home} is a file, not a folder`;
      expect(call.code).toBe(0);
      expect(JSON.parse(call.stdout).hookSpecificOutput).toMatchObject({
        permissionDecision: 'deny',
        permissionDecisionReason: expect.stringContaining(why),
      });
      const prompt = await runHook(agent, home, {
        ...base,
        hook_event_name: 'UserPromptSubmit',
        prompt: 'hello',
      });
      expect(prompt.code).toBe(0);
      expect(JSON.parse(prompt.stdout)).toEqual({ systemMessage: expect.stringContaining(why) });
    },
    60_000,
  );

  it('names the file that cannot be written inside it, in one line', async () => {
    const home = tree({ extensions: 'a file where the folder should be' });
    expectOneLineError(
      await hermes(home, ['extensions', 'init', 'guard']),
      join(home, 'extensions'),
    );
    const config = tree({
      'config.yaml/.keep': '',
      'extensions/guard.ts': tsExtension('guard'),
    });
    const run = await hermes(config, ['extensions', 'disable', 'guard']);
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toMatch(/^hermes: [^\n]+\n$/);
    expect(run.stderr).toContain(join(config, 'config.yaml'));
  }, 60_000);
});
