import { describe, expect, it } from 'vitest';
import { tree } from '../support/fixtures.js';
import { built, runHook } from '../support/run-bin.js';
import { hermes, hermesOnTerminal } from './hermes-cli.js';

/** A guard whose config must have three keys right. */
const strictGuard = `import { block, defineExtension } from 'hermes-extensions';
import { z } from 'zod';
export default defineExtension({
  name: 'strict-guard',
  configSchema: z.object({ limit: z.number(), names: z.array(z.string()), level: z.enum(['a', 'b']) }),
  setup(hermes) {
    hermes.on('intercept_tool_call', () => block('no'), { tools: ['bash'] });
  },
});
`;

/** Its section with three wrong keys: three schema issues (not `mode`: that key is the framework's, for shadow mode). */
const home = () =>
  tree({
    'config.yaml': 'extensions:\n  strict-guard:\n    limit: many\n    names: [1]\n    level: c\n',
    'extensions/strict-guard.ts': strictGuard,
  });

const ISSUES = [
  /^ +extensions\.strict-guard\.limit: Invalid input: expected number, received string$/m,
  /^ +extensions\.strict-guard\.names\.0: Invalid input: expected string, received number$/m,
  /^ +extensions\.strict-guard\.level: Invalid option: expected one of "a"\|"b"$/m,
];

/** Each issue on a line of its own, under the line that says what is wrong. */
function expectOneIssuePerLine(text: string): void {
  expect(text).toMatch(
    /config for "strict-guard" in .*config\.yaml does not match its configSchema:\n/,
  );
  for (const issue of ISSUES) expect(text).toMatch(issue);
}

describe.runIf(built)('several config-schema problems, each on a line of its own', () => {
  it('in list, inside the description column, on a wide terminal and at 80 columns', async () => {
    const h = home();
    const cwd = tree();
    const wide = await hermesOnTerminal(h, 220, `extensions list --cwd "${cwd}"`);
    const narrow = await hermes(h, 'extensions', 'list', '--cwd', cwd);
    expect(narrow.code).toBe(0);
    for (const run of [wide, narrow]) {
      const text = run.stdout.replace(/\r/g, '');
      // Each issue starts a line of its own, indented under the first line of the reason, which
      // ends before the first issue; an issue ends before the next.
      for (const key of ['limit', 'names', 'level']) {
        expect(text).toMatch(new RegExp(`^ +extensions\\.strict-guard\\.${key}`, 'm'));
      }
      expect(text).toMatch(/configSchema:\n/);
      expect(text).toMatch(/received string\n/);
    }
  });

  it('in test, both in what did not run and in the refusal', async () => {
    const run = await hermes(
      home(),
      'extensions',
      'test',
      'intercept_tool_call',
      '--input',
      '{"toolName":"bash","toolArgs":{"command":"ls"}}',
      '--cwd',
      tree(),
    );
    expect(run.code).toBe(1);
    const [refusal, notRunning] = run.stdout.split(/\n(?=Not running)/);
    expectOneIssuePerLine(refusal as string);
    expectOneIssuePerLine(notRunning as string);
  });

  it("in the hook's deny reason", async () => {
    const h = home();
    const run = await runHook(
      'claude-code',
      h,
      {
        hook_event_name: 'PreToolUse',
        session_id: 's1',
        cwd: tree(),
        tool_name: 'Bash',
        tool_input: { command: 'ls' },
      },
      { HERMES_DAEMON: '0' },
    );
    const answer = JSON.parse(run.stdout) as {
      hookSpecificOutput: { permissionDecision: string; permissionDecisionReason: string };
    };
    expect(answer.hookSpecificOutput.permissionDecision).toBe('deny');
    expectOneIssuePerLine(answer.hookSpecificOutput.permissionDecisionReason);
  });

  it('in doctor, as before, from the same layout', async () => {
    const run = await hermes(home(), 'extensions', 'doctor', '--cwd', tree());
    expect(run.code).toBe(1);
    expectOneIssuePerLine(run.stdout);
  });
});
