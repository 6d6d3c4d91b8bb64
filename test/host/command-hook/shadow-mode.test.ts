import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { hermes } from '../../cli/hermes-cli.js';
import { jsonLines, tree, tsExtension } from '../../support/fixtures.js';
import { built, root, runHook } from '../../support/run-bin.js';

/** A guard rolled out in shadow mode, the audit log on, in the user's own config. */
function session() {
  const home = tree({
    'extensions/new-guard.ts': tsExtension(
      'new-guard',
      `hermes.on('intercept_tool_call', (e) => block('no writes yet'), { tools: 'write' });`,
    ),
    'config.yaml': `extensions:\n  paths: [${JSON.stringify(join(root, 'extensions/audit-log'))}]\n  new-guard:\n    mode: shadow\n`,
  });
  const project = tree({ '.git/HEAD': '' });
  const write = {
    session_id: 'shadow',
    transcript_path: '/dev/null',
    cwd: project,
    permission_mode: 'default',
    hook_event_name: 'PreToolUse',
    tool_name: 'Write',
    tool_use_id: 'toolu_1',
    tool_input: { file_path: join(project, 'a.ts'), content: 'x' },
  };
  return { home, project, write };
}

describe.runIf(built)('hermes hook claude-code: a guard in shadow mode', () => {
  it('lets the call through, logs what it would have refused, and the report shows it', async () => {
    const { home, project, write } = session();
    const answer = await runHook('claude-code', home, write);
    expect(answer.code).toBe(0);
    // No decision: Claude Code goes on as it would without the hook.
    expect(answer.stdout).toBe('');
    const [line] = jsonLines(join(project, '.hermes/audit/audit.jsonl')).filter(
      (l) => l.event === 'hook_decision',
    );
    expect(line).toMatchObject({
      tool_name: 'write',
      blocked: false,
      would_block: true,
      shadow: [{ extension: 'new-guard', action: 'block', message: 'no writes yet' }],
    });

    const report = await hermes(home, 'extensions', 'report', '--cwd', project, '--json');
    expect(JSON.parse(report.stdout).extensions).toMatchObject([
      { extension: 'new-guard', would_block: 1, tools: [{ name: 'write', count: 1 }] },
    ]);
    const list = await hermes(home, 'extensions', 'list', '--cwd', project);
    expect(list.stdout).toMatch(/new-guard\s+enabled \(shadow mode\)/);
    const tried = await hermes(
      home,
      'extensions',
      'test',
      'intercept_tool_call',
      '--cwd',
      project,
      '--input',
      JSON.stringify({ toolName: 'write', toolArgs: { path: 'a.ts' } }),
    );
    expect(tried.code).toBe(0);
    expect(tried.stdout).toContain('shadow mode: would block: no writes yet (not applied)');
  });
});
