import { describe, expect, it } from 'vitest';
import { tree, tsExtension } from '../support/fixtures.js';
import { built, type Answer as Run, runBin } from '../support/run-bin.js';

/** The real bin with its own $HERMES_HOME and $HOME (the user's agent settings stay out). */
function hermes(home: string, ...args: string[]): Promise<Run> {
  return runBin(args, { HERMES_HOME: home, HOME: home, CODEX_HOME: '', HERMES_TRUST_PROJECT: '' });
}

describe.runIf(built)('doctor: transform_tool_result under the agents’ hooks', () => {
  it('names the extensions whose result handlers do not run under the Hermes agent’s shell hooks, and none for OpenCode’s plugin', async () => {
    const home = tree({
      // The Hermes agent runs its hooks unasked (doctor would report them unapproved otherwise).
      'config.yaml': 'hooks_auto_accept: true\n',
      'extensions/redactor.ts': tsExtension(
        'redactor',
        "hermes.on('transform_tool_result', (e) => rewrite(String(e.result).replaceAll('sk-', '[key]')));",
        "import { rewrite } from 'hermes-extensions';",
      ),
    });
    const project = tree({ '.git/HEAD': '' });
    expect((await hermes(home, 'hook', 'install', 'hermes-agent')).code).toBe(0);
    const env = { XDG_CONFIG_HOME: `${home}/.config` };
    const opencode = await runBin(['hook', 'install', 'opencode'], {
      HERMES_HOME: home,
      HOME: home,
      ...env,
    });
    expect(opencode.code, opencode.stderr).toBe(0);
    const run = await runBin(['extensions', 'doctor', '--cwd', project], {
      HERMES_HOME: home,
      HOME: home,
      CODEX_HOME: '',
      HERMES_TRUST_PROJECT: '',
      ...env,
    });
    expect(run.code, run.stdout).toBe(0);
    expect(run.stdout).toMatch(
      /! Hermes agent hook \(.*\): redactor handles transform_tool_result, which does not run under Hermes agent's hooks: a hook there cannot replace a tool's result/,
    );
    expect(run.stdout).toMatch(
      /fix: .*hook install hermes-agent --plugin \(the Python plugin runs them\)/,
    );
    expect(run.stdout).not.toMatch(/OpenCode hook .*transform_tool_result/);
  });
});
