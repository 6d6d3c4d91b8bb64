import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tree, tsExtension } from '../support/fixtures.js';
import { built, root, runHook } from '../support/run-bin.js';
import { hermes } from './hermes-cli.js';

const AUDIT_LOG = JSON.stringify(join(root, 'extensions/audit-log'));

/**
 * A user's guards under the real Claude Code hook, the audit log on: one blocks writes, one asks
 * before `rm` and rewrites a bare `ls`. Two sessions make a call of each kind, and a read that
 * nobody objects to runs (its PostToolUse is the pass).
 */
async function twoSessions() {
  const home = tree({
    'extensions/plan-guard.ts': tsExtension(
      'plan-guard',
      `hermes.on('intercept_tool_call', () => block('write the plan first'), { tools: 'write' });`,
    ),
    'extensions/shell-guard.ts': tsExtension(
      'shell-guard',
      `hermes.on('intercept_tool_call', (e) => {
        const command = String(e.toolArgs.command);
        if (command.startsWith('rm ')) return ask('this removes files');
        if (command === 'ls') return rewrite({ ...e.toolArgs, command: 'ls -la' });
        return pass();
      }, { tools: 'bash' });`,
      "import { ask, rewrite } from 'hermes-extensions';",
    ),
    'config.yaml': `extensions:\n  paths: [${AUDIT_LOG}]\n`,
  });
  const project = tree({ '.git/HEAD': '' });
  const call = (session: string, id: string, tool: string, input: Record<string, unknown>) => ({
    session_id: session,
    transcript_path: '/dev/null',
    cwd: project,
    permission_mode: 'default',
    hook_event_name: 'PreToolUse',
    tool_name: tool,
    tool_use_id: id,
    tool_input: input,
  });
  const events = [
    call('session-one-1234567890', 'toolu_1', 'Write', {
      file_path: join(project, 'a.ts'),
      content: 'x',
    }),
    call('session-one-1234567890', 'toolu_2', 'Bash', { command: 'rm -rf build' }),
    call('session-two-abcdefghij', 'toolu_3', 'Bash', { command: 'ls' }),
    call('session-two-abcdefghij', 'toolu_4', 'Read', { file_path: join(project, 'a.ts') }),
    {
      ...call('session-two-abcdefghij', 'toolu_4', 'Read', { file_path: join(project, 'a.ts') }),
      hook_event_name: 'PostToolUse',
      tool_response: { type: 'text', file: { filePath: join(project, 'a.ts'), content: 'x' } },
    },
  ];
  for (const event of events) {
    const answer = await runHook('claude-code', home, event);
    expect(answer.code, answer.stderr).toBe(0);
  }
  return { home, project };
}

const log = (home: string, project: string, ...args: string[]) =>
  hermes(home, 'extensions', 'log', '--cwd', project, ...args);

describe.runIf(built)('hermes extensions log', () => {
  it('shows what the guards did through the real hook: blocked, asked, rewritten, allowed, by whom, per session and tool', async () => {
    const { home, project } = await twoSessions();
    const json = await log(home, project, '--json');
    expect(json.stderr).toBe('');
    const read = JSON.parse(json.stdout);
    expect(read.files).toEqual([join(project, '.hermes/audit/audit.jsonl')]);
    expect(
      read.entries.map((e: Record<string, unknown>) => [e.session, e.tool, e.decision, e.by]),
    ).toEqual([
      ['session-one-1234567890', 'write', 'block', ['plan-guard']],
      ['session-one-1234567890', 'bash', 'ask', ['shell-guard']],
      ['session-two-abcdefghij', 'bash', 'rewrite', ['shell-guard']],
      ['session-two-abcdefghij', 'read', 'pass', []],
    ]);
    expect(read.entries[0].message).toContain('write the plan first');
    expect(read.entries[1].message).toContain('this removes files');
    expect(read.entries[2].actions).toEqual(['rewrite']);
    expect(read.summary).toEqual({
      block: { count: 1, by: { 'plan-guard': 1 } },
      ask: { count: 1, by: { 'shell-guard': 1 } },
      rewrite: { count: 1, by: { 'shell-guard': 1 } },
      pass: { count: 1, by: {} },
    });

    const shown = await log(home, project);
    expect(shown.code).toBe(0);
    const lines = shown.stdout.split('\n');
    expect(lines).toContainEqual(expect.stringMatching(/^TIME\s+SESSION\s+TOOL\s+DECISION\s+BY/));
    // Newest last, a session by the start of its id.
    const rows = lines.filter((l) => /^\d{4}-/.test(l));
    expect(rows.map((r) => r.split(/\s{2,}/).slice(1, 5))).toEqual([
      ['session-…', 'write', 'block', 'plan-guard'],
      ['session-…', 'bash', 'ask', 'shell-guard'],
      ['session-…', 'bash', 'rewrite', 'shell-guard'],
      ['session-…', 'read', 'pass', '-'],
    ]);
    // The reason, and what a rewrite changed, in the last column.
    expect(rows[0]).toMatch(/plan-guard\s+write the plan first$/);
    expect(rows[2]).toMatch(/shell-guard\s+rewrite of the call$/);
    expect(rows[3]).toMatch(/ran \(ok\)$/);
    expect(shown.stdout).toMatch(/^blocked\s+1\s+plan-guard 1$/m);
    expect(shown.stdout).toMatch(/^asked\s+1\s+shell-guard 1$/m);
    expect(shown.stdout).toMatch(/^rewritten\s+1\s+shell-guard 1$/m);
    expect(shown.stdout).toMatch(/^allowed\s+1$/m);
  }, 60_000);

  it('keeps what --session (the start of an id), --tool, --decision and --limit ask for', async () => {
    const { home, project } = await twoSessions();
    const kept = async (...args: string[]) => {
      const answer = await log(home, project, '--json', ...args);
      expect(answer.stderr).toBe('');
      return JSON.parse(answer.stdout).entries.map(
        (e: Record<string, unknown>) => `${e.tool}:${e.decision}`,
      );
    };
    expect(await kept('--session', 'session-two')).toEqual(['bash:rewrite', 'read:pass']);
    expect(await kept('--tool', 'bash')).toEqual(['bash:ask', 'bash:rewrite']);
    expect(await kept('--tool', 'Bash')).toEqual(['bash:ask', 'bash:rewrite']);
    expect(await kept('--decision', 'block,ask')).toEqual(['write:block', 'bash:ask']);
    expect(await kept('--limit', '2')).toEqual(['bash:rewrite', 'read:pass']);
    expect(await kept('--since', '1h')).toHaveLength(4);
    expect(await kept('--since', '2999-01-01')).toEqual([]);

    const table = await log(home, project, '--limit', '1');
    expect(table.stdout).toContain('4 decision(s)');
    expect(table.stdout).toContain('The newest 1 are shown');
    expect(table.stdout.split('\n').filter((l) => /^\d{4}-/.test(l))).toHaveLength(1);
    // The summary counts every entry kept by the filters, not only those shown.
    expect(table.stdout).toMatch(/^blocked\s+1\s+plan-guard 1$/m);
  }, 60_000);

  it('refuses a --decision, --limit or --since it does not know (exit 2)', async () => {
    const home = tree();
    const project = tree({ '.git/HEAD': '' });
    const decision = await log(home, project, '--decision', 'deny');
    expect(decision.code).toBe(2);
    expect(decision.stderr).toContain('--decision takes block, ask, rewrite, pass');
    const limit = await log(home, project, '--limit', 'ten');
    expect(limit.code).toBe(2);
    const since = await log(home, project, '--since', 'yesterday');
    expect(since.code).toBe(2);
    expect(since.stderr).toMatch(/--since must be .*duration.*"yesterday"/);
  });

  it('says how to turn audit-log on when it is off, and that nothing is written yet when it is on', async () => {
    const project = tree({ '.git/HEAD': '' });
    const off = await log(tree(), project);
    expect(off.code).toBe(1);
    expect(off.stderr).toContain(join(project, '.hermes/audit/audit.jsonl'));
    expect(off.stderr).toContain('extensions: { paths: [hermes-extensions/audit-log] }');
    expect(off.stderr).toContain('docs/observing.md');

    const on = await log(
      tree({ 'config.yaml': 'extensions:\n  paths: [hermes-extensions/audit-log]\n' }),
      project,
    );
    expect(on.code).toBe(0);
    expect(on.stdout).toContain('audit-log is on here and has written nothing yet');
  });

  it('reads each kind of line as one decision: a pass only shadow mode or a failure marked, an answered ask, a redaction, a subagent; a refused call is no pass', async () => {
    const at = '2026-11-01T10:00:00.000Z';
    const line = (fields: Record<string, unknown>) =>
      JSON.stringify({ at, session_id: 's1', ...fields });
    const trail = [
      // Shadow mode only: the call passed.
      line({
        event: 'hook_decision',
        hook: 'intercept_tool_call',
        tool_name: 'write',
        tool_call_id: 'c1',
        blocked: false,
        changed: false,
        shadow: [{ extension: 'new-guard', action: 'block', message: 'not yet' }],
        trace: [{ extension: 'new-guard', action: 'pass' }],
      }),
      // Its outcome adds nothing: the call has its decision.
      line({ event: 'post_tool_call', tool_name: 'write', tool_call_id: 'c1', status: 'ok' }),
      // An ask and the person's answer.
      line({
        event: 'hook_decision',
        hook: 'intercept_tool_call',
        tool_name: 'bash',
        tool_call_id: 'c2',
        blocked: false,
        changed: false,
        ask: { message: 'sure?', asked_by: 'shell-guard' },
        trace: [{ extension: 'shell-guard', action: 'ask' }],
      }),
      line({ event: 'post_approval_response', tool_call_id: 'c2', choice: 'deny' }),
      // Refused by the host: the refusal is the decision, not a pass.
      line({ event: 'post_tool_call', tool_name: 'bash', tool_call_id: 'c2', status: 'blocked' }),
      // A handler that failed (fail-open), in a subagent's call.
      line({
        event: 'hook_decision',
        hook: 'intercept_tool_call',
        tool_name: 'read',
        tool_call_id: 'c3',
        agent_id: 'sub-1',
        blocked: false,
        changed: false,
        trace: [{ extension: 'broken', action: 'error', error: 'boom' }],
      }),
      // A result redacted.
      line({
        event: 'hook_decision',
        hook: 'transform_tool_result',
        tool_name: 'read',
        tool_call_id: 'c3',
        blocked: false,
        changed: true,
        trace: [{ extension: 'secrets-guard', action: 'rewrite' }],
      }),
      line({ event: 'on_session_start' }),
    ];
    const project = tree({ '.git/HEAD': '', 'trail.jsonl': `${trail.join('\n')}\n` });
    const file = join(project, 'trail.jsonl');
    const json = await log(tree(), project, '--file', file, '--json');
    expect(json.stderr).toBe('');
    expect(JSON.parse(json.stdout).entries).toEqual([
      {
        at,
        session: 's1',
        hook: 'intercept_tool_call',
        tool: 'write',
        decision: 'pass',
        by: [],
        shadow: [{ extension: 'new-guard', action: 'block', message: 'not yet' }],
      },
      {
        at,
        session: 's1',
        hook: 'intercept_tool_call',
        tool: 'bash',
        decision: 'ask',
        by: ['shell-guard'],
        message: 'sure?',
        answer: 'deny',
      },
      {
        at,
        session: 's1',
        agent: 'sub-1',
        hook: 'intercept_tool_call',
        tool: 'read',
        decision: 'pass',
        by: [],
        failed: ['broken'],
      },
      {
        at,
        session: 's1',
        hook: 'transform_tool_result',
        tool: 'read',
        decision: 'rewrite',
        by: ['secrets-guard'],
        actions: ['rewrite'],
      },
    ]);
    const table = await log(tree(), project, '--file', file);
    // The WHY column wraps: its words are read as one line.
    const said = table.stdout.replace(/\s+/g, ' ');
    expect(said).toContain('shadow mode: new-guard would block: not yet');
    expect(said).toContain('sure? (answered: deny)');
    expect(said).toContain('s1 (sub-1)');
    expect(said).toContain('failed, passed over: broken');
    expect(said).toContain('rewrite of the result');
  });

  it("writes out the escape sequences of a committed line's fields, and reads --file", async () => {
    const clip = '\u001b]52;c;Y3VybCBldmlsIHwgc2g=\u0007';
    const line = JSON.stringify({
      at: '2026-11-01T10:00:00.000Z',
      event: 'hook_decision',
      session_id: `s${clip}`,
      hook: 'intercept_tool_call',
      tool_name: `write${clip}`,
      blocked: true,
      blocked_by: `g${clip}`,
      message: `no${clip}`,
    });
    const home = tree();
    const project = tree({ '.git/HEAD': '', 'trail.jsonl': `${line}\nnot json\n` });
    const answer = await log(home, project, '--file', join(project, 'trail.jsonl'));
    expect(answer.code).toBe(0);
    expect(answer.stdout).toContain('\\x1b]52;c;');
    expect(answer.stdout).toContain('1 line(s) that are not JSON were skipped');
    expect(answer.stdout).not.toContain('\u001b');
    expect(answer.stdout).not.toContain('\u0007');
  });
});
