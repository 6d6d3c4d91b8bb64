import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { jsonLines, tree, tsExtension } from '../../support/fixtures.js';
import { hermesEvent } from '../../support/hermes-agent-wire.js';
import { built, runHook } from '../../support/run-bin.js';

/**
 * What observers hear of a tool call's outcome through `hermes hook hermes-agent`. Hermes sends
 * `post_tool_call` for a call it did not run, too: after a `pre_tool_call` block (ours or another
 * hook's), `status: "blocked"`, `error_type: "plugin_block"`, `result: {"error": message}`; after
 * its own guardrail, `"guardrail_block"`; for a tool outside the turn's scope, before any
 * `pre_tool_call`, `"tool_scope_block"` (agent/tool_executor.py, `_emit_terminal_post_tool_call`
 * on each blocked path; model_tools.py, `handle_function_call`).
 */
function setup(extensions: Record<string, string> = {}) {
  const project = tree({ '.git/HEAD': '', 'src/a.ts': '' });
  const events = join(project, 'events.jsonl');
  const home = tree({
    ...extensions,
    'config.yaml': 'extensions:\n  paths: [hermes-extensions/workflow-guard]\n',
    'extensions/recorder.ts': tsExtension(
      'recorder',
      `hermes.observe('*', (p) => appendFileSync(${JSON.stringify(events)}, JSON.stringify(p) + '\\n'));`,
      `import { appendFileSync } from 'node:fs';`,
    ),
  });
  const send = async (event: string, fields: Record<string, unknown>) => {
    const stdin = hermesEvent(event, {
      session_id: 'h-session',
      cwd: project,
      turn_id: 't1',
      task_id: 'main',
      ...fields,
    });
    const answer = await runHook('hermes-agent', home, stdin);
    expect([0, 3], `${event}: ${answer.stderr}`).toContain(answer.code);
    return answer;
  };
  const blockedOutcome = (
    tool_name: string,
    args: Record<string, unknown>,
    tool_call_id: string,
    error_type: string,
    message: string,
  ) =>
    send('post_tool_call', {
      tool_name,
      args,
      tool_call_id,
      result: JSON.stringify({ error: message }),
      duration_ms: 0,
      status: 'blocked',
      error_type,
      error_message: message,
      api_request_id: 'r1',
      middleware_trace: [],
    });
  const outcomes = (id: string) =>
    jsonLines(events).filter((e) => e.event === 'post_tool_call' && e.tool_call_id === id);
  return { project, send, blockedOutcome, outcomes, events: () => jsonLines(events) };
}

describe.runIf(built)('hermes hook hermes-agent: tool outcomes', { timeout: 60_000 }, () => {
  it('a refused call reaches observers once: Hermes’ own blocked post_tool_call after it is not told again', async () => {
    const { project, send, blockedOutcome, outcomes } = setup();
    await send('pre_llm_call', { user_message: 'fix it', is_first_turn: true, platform: 'cli' });
    const args = { path: join(project, 'src/a.ts'), content: 'x' };
    const refused = await send('pre_tool_call', {
      tool_name: 'write_file',
      args,
      tool_call_id: 'c1',
    });
    const message = JSON.parse(refused.stdout).message as string;
    expect(message).toMatch(/plan/);
    await blockedOutcome('write_file', args, 'c1', 'plugin_block', message);
    expect(outcomes('c1')).toEqual([
      expect.objectContaining({ status: 'blocked', tool_name: 'write', result: message }),
    ]);
  });

  it('a rewrite Hermes cannot apply is refused, and reaches observers once, as blocked', async () => {
    const { send, blockedOutcome, outcomes } = setup({
      'extensions/dropper.ts': tsExtension(
        'dropper',
        `hermes.on('intercept_tool_call', (e) => { if (e.toolName !== 'read') return; const { offset, ...rest } = e.toolArgs; return { action: 'rewrite', value: rest }; });`,
      ),
    });
    await send('pre_llm_call', { user_message: 'look', is_first_turn: true, platform: 'cli' });
    const args = { path: 'src/a.ts', offset: 10 };
    const refused = await send('pre_tool_call', {
      tool_name: 'read_file',
      args,
      tool_call_id: 'c4',
    });
    const message = JSON.parse(refused.stdout).message as string;
    expect(message).toMatch(/cannot apply/);
    await blockedOutcome('read_file', args, 'c4', 'plugin_block', message);
    expect(outcomes('c4')).toEqual([
      expect.objectContaining({ status: 'blocked', tool_name: 'read', result: message }),
    ]);
  });

  it('a call allowed here that Hermes then did not run is told once, as blocked; one that never reached the hook is not taken for unchecked', async () => {
    const { send, blockedOutcome, outcomes } = setup();
    await send('pre_llm_call', { user_message: 'look', is_first_turn: true, platform: 'cli' });
    const args = { path: 'src/a.ts' };
    const allowed = await send('pre_tool_call', {
      tool_name: 'read_file',
      args,
      tool_call_id: 'c2',
    });
    expect(allowed.stdout).toBe('');
    await blockedOutcome('read_file', args, 'c2', 'guardrail_block', 'repeated call');
    expect(outcomes('c2')).toEqual([
      expect.objectContaining({ status: 'blocked', tool_name: 'read' }),
    ]);
    // Outside the turn's tool scope: refused by Hermes before any pre_tool_call, so never run.
    await blockedOutcome('web_search', { q: 'x' }, 'c3', 'tool_scope_block', 'not in scope');
    expect(outcomes('c3')).toEqual([expect.objectContaining({ status: 'blocked' })]);
    const end = await send('on_session_end', { completed: true, interrupted: false });
    expect(end.stderr).not.toMatch(/ran without a decision/);
  });
});
