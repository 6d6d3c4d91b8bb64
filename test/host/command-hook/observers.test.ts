import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { jsonLines, tree, tsExtension, write } from '../../support/fixtures.js';
import { built, root, runHook } from '../../support/run-bin.js';

type Agent = 'claude-code' | 'codex';

/**
 * Hook mode reports what it knows to observers, with the fields the in-process host uses: the
 * audit log of a session run through `hermes hook <agent>` holds its decisions and tool outcomes.
 */
function setup(agent: Agent) {
  const project = tree({ '.git/HEAD': '' });
  const events = join(project, 'events.jsonl');
  const home = tree({
    'config.yaml': `extensions:\n  paths: [${JSON.stringify(join(root, 'extensions/audit-log'))}]\n`,
    'extensions/no-rm.ts': tsExtension(
      'no-rm',
      `hermes.on('intercept_tool_call', (e) => String(e.toolArgs.command).includes('rm ') ? block('no rm here') : undefined, { tools: ['bash'] });
      hermes.on('transform_user_input', (e) => e.userMessage.includes('forbidden') ? block('not that') : undefined);`,
    ),
    // Every event, written before the observer returns: what the process emitted, in order.
    'extensions/recorder.ts': tsExtension(
      'recorder',
      `hermes.observe('*', (p) => appendFileSync(${JSON.stringify(events)}, JSON.stringify(p) + '\\n'));`,
      `import { appendFileSync } from 'node:fs';`,
    ),
  });
  const base = {
    session_id: `${agent}-session`,
    ...(agent === 'codex' ? { turn_id: 't1', model: 'gpt-5.5' } : { transcript_path: '/dev/null' }),
    cwd: project,
    permission_mode: 'default',
  };
  const bash = (id: string, command: string) => ({
    ...base,
    tool_name: 'Bash',
    tool_input: { command },
    tool_use_id: id,
  });
  return {
    home,
    project,
    base,
    bash,
    audit: () => jsonLines(join(project, '.hermes/audit/audit.jsonl')),
    events: () => jsonLines(events),
  };
}

async function ask(agent: Agent, home: string, event: unknown) {
  const answer = await runHook(agent, home, event);
  expect(answer.code, answer.stderr).toBe(0);
  return answer;
}

describe.runIf(built).each(['claude-code', 'codex'] as const)(
  'hermes hook %s reports to observers',
  { timeout: 60_000 },
  (agent) => {
    it('a blocked PreToolUse leaves its hook_decision and its blocked outcome in the audit log', async () => {
      const { home, bash, audit } = setup(agent);
      const denied = await ask(agent, home, {
        ...bash('c1', 'rm -rf src'),
        hook_event_name: 'PreToolUse',
      });
      expect(JSON.parse(denied.stdout).hookSpecificOutput.permissionDecision).toBe('deny');
      const lines = audit();
      expect(lines.map((l) => [l.event, l.tool_name, l.tool_call_id])).toEqual([
        ['hook_decision', 'bash', 'c1'],
        ['post_tool_call', 'bash', 'c1'],
      ]);
      expect(lines[0]).toMatchObject({
        hook: 'intercept_tool_call',
        blocked: true,
        blocked_by: 'no-rm',
        message: 'no rm here',
        decided_by: ['no-rm'],
        session_id: `${agent}-session`,
        platform: agent,
        telemetry_schema_version: 'hermes.observer.v1',
      });
      expect(lines[1]).toMatchObject({ status: 'blocked', result: 'no rm here' });
      expect(lines[0]?.turn_id).toEqual(expect.any(String));
      expect(lines[1]?.turn_id).toBe(lines[0]?.turn_id);
    });

    it('a turn: session start, each tool call, its decision and outcome, session end', async () => {
      const { home, base, bash, events } = setup(agent);
      await ask(agent, home, { ...base, hook_event_name: 'UserPromptSubmit', prompt: 'tidy up' });
      await ask(agent, home, { ...bash('c1', 'rm -rf src'), hook_event_name: 'PreToolUse' });
      expect(
        (await ask(agent, home, { ...bash('c2', 'ls'), hook_event_name: 'PreToolUse' })).stdout,
      ).toBe('');
      // PostToolUse is answered with nothing at all: both agents take that as "go on".
      const after = await ask(agent, home, {
        ...bash('c2', 'ls'),
        hook_event_name: 'PostToolUse',
        tool_response:
          agent === 'codex' ? 'src\n' : { stdout: 'src\n', stderr: '', interrupted: false },
        ...(agent === 'claude-code' ? { duration_ms: 12 } : {}),
      });
      expect(after).toEqual({ code: 0, stdout: '', stderr: '' });
      await ask(agent, home, { ...base, hook_event_name: 'Stop', stop_hook_active: false });

      const seen = events();
      expect(seen.map((e) => [e.event, e.tool_call_id ?? e.hook ?? ''])).toEqual([
        ['on_session_start', ''],
        ['pre_tool_call', 'c1'],
        ['hook_decision', 'c1'],
        ['post_tool_call', 'c1'],
        ['pre_tool_call', 'c2'],
        ['post_tool_call', 'c2'],
        ['on_session_end', ''],
      ]);
      const turnId = seen[0]?.turn_id;
      expect(turnId).toEqual(agent === 'codex' ? 't1' : expect.any(String));
      for (const e of seen) {
        expect(e).toMatchObject({
          session_id: `${agent}-session`,
          turn_id: turnId,
          task_id: turnId,
          platform: agent,
          ...(agent === 'codex' ? { model: 'gpt-5.5' } : {}),
        });
      }
      expect(seen[1]).toMatchObject({ tool_name: 'bash', args: { command: 'rm -rf src' } });
      expect(seen[5]).toMatchObject({
        tool_name: 'bash',
        status: 'ok',
        result: expect.stringContaining('src'),
        ...(agent === 'claude-code' ? { duration_ms: 12 } : {}),
      });
      expect(seen[6]).toMatchObject({ completed: true, interrupted: false, reason: 'completed' });
    });

    it('a blocked prompt is a whole turn: reported ended at once, and not again at Stop', async () => {
      const { home, base, events } = setup(agent);
      const prompt = { ...base, hook_event_name: 'UserPromptSubmit', prompt: 'do the forbidden' };
      expect(JSON.parse((await ask(agent, home, prompt)).stdout)).toMatchObject({
        decision: 'block',
      });
      await ask(agent, home, { ...base, hook_event_name: 'Stop', stop_hook_active: false });
      expect(events().map((e) => [e.event, e.reason ?? e.hook ?? ''])).toEqual([
        ['on_session_start', ''],
        ['hook_decision', 'transform_user_input'],
        ['on_session_end', 'blocked'],
      ]);
    });

    it('answers PostToolUse without the result (Claude Code) or with a message (Codex) when the config does not load', async () => {
      const { home, bash } = setup(agent);
      write(home, { 'config.yaml': 'extensions: [unclosed\n' });
      const answer = await ask(agent, home, {
        ...bash('c1', 'ls'),
        hook_event_name: 'PostToolUse',
        tool_response: 'src\n',
      });
      if (agent === 'codex') {
        // Codex's PostToolUse is also where before_llm_call runs: the user is told, as at a prompt.
        expect(JSON.parse(answer.stdout)).toEqual({
          systemMessage: expect.stringContaining('config.yaml'),
        });
      } else {
        // Claude Code's result may hold what an extension that did not load would have redacted:
        // it is withheld, with the reason (tool-result.ts).
        const output = JSON.parse(answer.stdout);
        expect(output.hookSpecificOutput.updatedToolOutput).toMatch(
          /Hermes could not check this tool result, so it is refused: .*config\.yaml/,
        );
        expect(answer.stderr).toMatch(/transform_tool_result did not run: .*config\.yaml/);
      }
    });
  },
);

describe.runIf(built)('hermes hook claude-code at SessionEnd', { timeout: 60_000 }, () => {
  it('reports a turn that never got its Stop as interrupted, and an ended one not again', async () => {
    const { home, base, events } = setup('claude-code');
    await ask('claude-code', home, { ...base, hook_event_name: 'UserPromptSubmit', prompt: 'go' });
    await ask('claude-code', home, { ...base, hook_event_name: 'SessionEnd', reason: 'other' });
    await ask('claude-code', home, { ...base, hook_event_name: 'SessionEnd', reason: 'other' });
    expect(events().map((e) => e.event)).toEqual(['on_session_start', 'on_session_end']);
    expect(events()[1]).toMatchObject({ completed: false, interrupted: true, reason: 'cancelled' });
  });
});

describe.runIf(built).each(['claude-code', 'codex'] as const)(
  'hermes hook %s loads extensions for a report only when someone listens',
  { timeout: 60_000 },
  (agent) => {
    /** A home whose one extension counts its loads, and observes `observed` if given. */
    function counting(observed?: string) {
      const project = tree({ '.git/HEAD': '' });
      const loads = join(project, 'loads.txt');
      const home = tree({
        'extensions/counted.ts': tsExtension(
          'counted',
          `appendFileSync(${JSON.stringify(loads)}, 'x');
          hermes.on('intercept_tool_call', () => undefined);
          ${observed ? `hermes.observe('${observed}', () => {});` : ''}`,
          `import { appendFileSync } from 'node:fs';`,
        ),
      });
      const base = { session_id: `${agent}-count`, turn_id: 't1', cwd: project };
      const call = { ...base, tool_name: 'Bash', tool_input: { command: 'ls' }, tool_use_id: 'c1' };
      const count = () => (existsSync(loads) ? readFileSync(loads, 'utf8').length : 0);
      return { home, base, call, count };
    }

    it('PostToolUse and Stop load nothing when the turn has no observer of them', async () => {
      const { home, base, call, count } = counting();
      await ask(agent, home, { ...base, hook_event_name: 'UserPromptSubmit', prompt: 'go' });
      await ask(agent, home, { ...call, hook_event_name: 'PreToolUse' });
      expect(count()).toBe(2);
      await ask(agent, home, { ...call, hook_event_name: 'PostToolUse', tool_response: 'ok' });
      await ask(agent, home, { ...base, hook_event_name: 'Stop' });
      expect(count()).toBe(2);
    });

    it('PostToolUse and Stop load the extensions when one observes them', async () => {
      const { home, base, call, count } = counting('*');
      await ask(agent, home, { ...base, hook_event_name: 'UserPromptSubmit', prompt: 'go' });
      await ask(agent, home, { ...call, hook_event_name: 'PreToolUse' });
      await ask(agent, home, { ...call, hook_event_name: 'PostToolUse', tool_response: 'ok' });
      await ask(agent, home, { ...base, hook_event_name: 'Stop' });
      expect(count()).toBe(4);
    });
  },
);
