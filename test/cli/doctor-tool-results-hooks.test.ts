import { describe, expect, it } from 'vitest';
import { tree, tsExtension } from '../support/fixtures.js';
import { built, runBin } from '../support/run-bin.js';

/**
 * doctor on transform_tool_result under Claude Code's and Codex's hooks: Claude Code's
 * `PostToolUse` hands the model another result (tool-result.ts), Codex 0.169's does not take
 * `updatedToolOutput`, so there the handlers do not run, and doctor names them.
 */
describe.runIf(built)('doctor: transform_tool_result under Claude Code and Codex hooks', () => {
  it('names the result handlers that do not run under Codex, and none for Claude Code', async () => {
    const home = tree({
      'extensions/redactor.ts': tsExtension(
        'redactor',
        "hermes.on('transform_tool_result', (e) => rewrite(String(e.result).replaceAll('sk-', '[key]')));",
        "import { rewrite } from 'hermes-extensions';",
      ),
    });
    const project = tree({ '.git/HEAD': '' });
    const env = { HERMES_HOME: home, HOME: home, CODEX_HOME: '', HERMES_TRUST_PROJECT: '' };
    for (const agent of ['claude-code', 'codex']) {
      const installed = await runBin(['hook', 'install', agent], env);
      expect(installed.code, installed.stderr).toBe(0);
    }
    const run = await runBin(['extensions', 'doctor', '--cwd', project], env);
    expect(run.stdout).toMatch(
      /! Codex hook \(.*\): redactor handles transform_tool_result, which does not run under Codex's hooks: a hook there cannot replace a tool's result/,
    );
    expect(run.stdout).not.toMatch(/Claude Code hook .*transform_tool_result/);
  });
});
