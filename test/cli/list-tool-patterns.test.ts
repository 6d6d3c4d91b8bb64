import { describe, expect, it } from 'vitest';
import { tree, tsExtension } from '../support/fixtures.js';
import { built } from '../support/run-bin.js';
import { hermesWith } from './hermes-cli.js';

/**
 * A handler's tool matcher written as a pattern (workflow-guard's matches every spelling of the
 * shell tools): the table shows the agents' tool names it matches, never a cut regular
 * expression; `--json` keeps the pattern whole.
 */
describe.runIf(built)('hermes extensions list shows a tool pattern readably', () => {
  it('workflow-guard: the shell tools its pattern matches in the table, the whole source in --json', async () => {
    const home = tree();
    const project = tree({
      '.git/HEAD': '',
      '.hermes/config.yaml': 'extensions:\n  paths: [hermes-extensions/workflow-guard]\n',
    });
    const env = { HERMES_TRUST_PROJECT: '1' };
    const table = await hermesWith(env, home, 'extensions', 'list', '--cwd', project);
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).not.toContain('…');
    expect(table.stdout).not.toContain('[/^');
    expect(table.stdout).toMatch(/~\[terminal,bash,shell,\+\d+\]/);
    const json = await hermesWith(env, home, 'extensions', 'list', '--json', '--cwd', project);
    const [guard] = JSON.parse(json.stdout) as { hooks: { tools?: string[] }[] }[];
    const pattern = guard?.hooks.find((h) => h.tools)?.tools?.[0] ?? '';
    expect(pattern).toMatch(/^\/\^.*\$\/i$/);
    const [, source, flags] = /^\/(.*)\/([a-z]*)$/s.exec(pattern) ?? [];
    expect(new RegExp(source ?? '', flags).test('run_shell_command')).toBe(true);
  });

  it('a pattern that matches no tool name known to hermes is shown as written', async () => {
    const home = tree({
      'extensions/mine.ts': tsExtension(
        'mine',
        `hermes.on('intercept_tool_call', () => undefined, { tools: [/^mcp__db__/, 'Write'] });`,
      ),
    });
    const table = await hermesWith({}, home, 'extensions', 'list', '--cwd', tree());
    expect(table.stdout).toContain('[/^mcp__db__/,Write]');
  });
});
