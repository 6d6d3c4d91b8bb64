import { describe, expect, it } from 'vitest';
import { tree } from '../support/fixtures.js';
import { built } from '../support/run-bin.js';
import { hermes } from './hermes-cli.js';

const stamp = (agoMs: number) => new Date(Date.now() - agoMs).toISOString();
const HOUR = 60 * 60 * 1000;

describe.runIf(built)("hermes extensions doctor: the hook daemon's log", () => {
  it("shows the log's recent warnings and errors, the latest first-lines, as a warning", async () => {
    const home = tree({
      'logs/daemon.log': [
        `${stamp(72 * HOUR)} pid=10 warn [hermes:otel] an old export failure`,
        `${stamp(2 * HOUR)} pid=11 info hermes daemon 0.1.0: listening at /tmp/x.sock`,
        `${stamp(HOUR)} pid=11 warn [hermes:audit-log] cannot write the audit log /p/a.jsonl: EACCES`,
        `${stamp(HOUR / 2)} pid=11 error [hermes:late] observer of post_tool_call failed (Error: boom)`,
        '  at the stack line of it',
        '',
      ].join('\n'),
    });
    const run = await hermes(home, 'extensions', 'doctor', '--cwd', tree());
    expect(run.stdout).toContain(
      `! hook daemon log: 2 warning(s) or error(s) in ${home}/logs/daemon.log`,
    );
    expect(run.stdout).toMatch(/ warn: \[hermes:audit-log\] cannot write the audit log/);
    expect(run.stdout).toMatch(/ error: \[hermes:late\] observer of post_tool_call failed/);
    expect(run.stdout).not.toContain('an old export failure');
    expect(run.stdout).not.toContain('the stack line');
    // A warning: the daemon answered; exit 0.
    expect(run.code).toBe(0);
  });

  it('says the log is quiet, and says nothing of a daemon that never ran', async () => {
    const quiet = tree({ 'logs/daemon.log': `${stamp(HOUR)} pid=1 info hermes daemon: stopped\n` });
    const run = await hermes(quiet, 'extensions', 'doctor', '--cwd', tree());
    expect(run.stdout).toMatch(/✓ hook daemon log: .*no warning or error in the last 24 hours/);
    const never = await hermes(tree(), 'extensions', 'doctor', '--cwd', tree());
    expect(never.stdout).not.toContain('hook daemon log');
  });
});

describe.runIf(built)('hermes extensions doctor: the audit trail', () => {
  it('shows the lines audit-log could not write to the trail, as a warning', async () => {
    const trail = '/p/.hermes/audit/audit.jsonl';
    const kept = (event: string) =>
      `${JSON.stringify({ trail, why: 'it is not a regular file (a FIFO)', line: { at: stamp(HOUR), event } })}\n`;
    const project = tree({
      '.git/HEAD': '',
      '.hermes/audit-log.unwritten.jsonl': kept('hook_decision') + kept('post_tool_call'),
    });
    const run = await hermes(tree(), 'extensions', 'doctor', '--cwd', project);
    expect(run.stdout).toContain(
      `! audit trail: 2 line(s) could not be written to the audit trail and are kept in ${project}/.hermes/audit-log.unwritten.jsonl`,
    );
    expect(run.stdout).toContain(`post_tool_call for ${trail}: it is not a regular file (a FIFO)`);
    const clean = await hermes(tree(), 'extensions', 'doctor', '--cwd', tree({ '.git/HEAD': '' }));
    expect(clean.stdout).not.toContain('audit trail');
  });
});
