import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tree } from '../support/fixtures.js';
import { built } from '../support/run-bin.js';
import { hermes } from './hermes-cli.js';

const AUDIT = '.hermes/audit/audit.jsonl';

/** The lines of the project's audit trail; none when it was never written. */
function auditLines(project: string): string[] {
  const file = join(project, AUDIT);
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '');
}

/**
 * A user's setup with the audit trail on and a guard that refuses: doctor's dry run and a
 * `hermes extensions test` trial run that guard on made-up calls. Neither is a call an agent
 * made, so neither may reach the trail, nor be counted by `report` and `log` as if it were.
 */
describe.runIf(built)('trials never reach the audit trail', () => {
  const setup = (guard: string) => {
    const home = tree({
      'config.yaml': `extensions:\n  paths: [hermes-extensions/audit-log, hermes-extensions/workflow-guard]\n${guard}`,
    });
    const project = tree({ '.git/HEAD': '' });
    return { home, project };
  };

  it("doctor's dry run writes no line into the project's audit log", async () => {
    const { home, project } = setup('');
    const answer = await hermes(home, 'extensions', 'doctor', '--cwd', project);
    expect(answer.stdout).toMatch(/dry run: \d+ sample call\(s\)/);
    expect(auditLines(project)).toEqual([]);
  });

  it('`hermes extensions test` is not counted by report nor log', async () => {
    // In shadow mode, so that `report` would count the trial's decision were it written.
    const { home, project } = setup('  workflow-guard:\n    mode: shadow\n');
    const input = JSON.stringify({
      toolName: 'write',
      toolArgs: { path: 'src/a.ts', content: 'x' },
    });
    const trial = await hermes(
      home,
      'extensions',
      'test',
      'intercept_tool_call',
      '--input',
      input,
      '--cwd',
      project,
    );
    expect(trial.stdout).toContain('shadow mode: would block');
    expect(auditLines(project)).toEqual([]);
    // Neither reader finds a decision to count: there is no trail at all.
    for (const command of ['report', 'log']) {
      const read = await hermes(home, 'extensions', command, '--cwd', project, '--json');
      expect(read.stdout, command).not.toMatch(/workflow-guard/);
    }
  });
});
