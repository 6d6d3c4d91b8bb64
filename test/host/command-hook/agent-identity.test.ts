import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { jsonLines, tree, tsExtension } from '../../support/fixtures.js';
import { built, runHook } from '../../support/run-bin.js';

type Agent = 'claude-code' | 'codex';

/**
 * Which agent made a call: inside a subagent both agents add `agent_id` and `agent_type` to every
 * hook payload. Handlers see it as `event.agent` (and can scope on it with `when`), observers as
 * `agent_id` / `agent_type`; the main agent's calls carry neither.
 */
function setup(agent: Agent) {
  const project = tree({ '.git/HEAD': '' });
  const seen = join(project, 'seen.jsonl');
  const events = join(project, 'events.jsonl');
  const home = tree({
    // Subagents may not run the shell; the main agent may. Every call and model request is
    // recorded with the agent it came from and the count of calls the turn's state holds.
    'extensions/subagent-guard.ts': tsExtension(
      'subagent-guard',
      `const note = (hook, e) => appendFileSync(${JSON.stringify(seen)}, JSON.stringify({ hook, agent: e.agent ?? null, turnId: e.turnId, calls: e.state.calls ?? 0 }) + '\\n');
      hermes.on('intercept_tool_call', (e) => { e.state.calls = (e.state.calls ?? 0) + 1; note('intercept_tool_call', e); }, { priority: 1 });
      hermes.on('intercept_tool_call', () => block('subagents may not run the shell'), { priority: 2, tools: ['bash'], when: { agent: P.not(P.nullish) } });
      hermes.on('before_llm_call', (e) => note('before_llm_call', e));
      hermes.observe('*', (p) => appendFileSync(${JSON.stringify(events)}, JSON.stringify(p) + '\\n'));`,
      `import { appendFileSync } from 'node:fs';\nimport { P } from 'hermes-extensions';`,
    ),
  });
  const base = {
    session_id: `${agent}-agents`,
    ...(agent === 'codex' ? { turn_id: 't1', model: 'gpt-5.5' } : { transcript_path: '/dev/null' }),
    cwd: project,
    permission_mode: 'default',
  };
  const sub = { agent_id: 'a7f3', agent_type: 'Explore' };
  const bash = (id: string, command: string, who: Record<string, unknown> = {}) => ({
    ...base,
    ...who,
    hook_event_name: 'PreToolUse',
    tool_name: 'Bash',
    tool_input: { command },
    tool_use_id: id,
  });
  const afterTools = (id: string, who: Record<string, unknown>) => {
    const result = { tool_name: 'Read', tool_input: { file_path: 'a.md' }, tool_use_id: id };
    return agent === 'codex'
      ? { ...base, ...who, hook_event_name: 'PostToolUse', ...result, tool_response: 'text' }
      : {
          ...base,
          ...who,
          hook_event_name: 'PostToolBatch',
          tool_calls: [{ ...result, tool_response: 'text' }],
        };
  };
  return {
    home,
    base,
    sub,
    bash,
    afterTools,
    seen: () => jsonLines(seen),
    events: () => jsonLines(events),
  };
}

async function decisionOf(agent: Agent, home: string, event: unknown) {
  const answer = await runHook(agent, home, event);
  expect(answer.code, answer.stderr).toBe(0);
  return answer.stdout === ''
    ? undefined
    : (JSON.parse(answer.stdout) as { hookSpecificOutput?: Record<string, unknown> });
}

describe.runIf(built).each(['claude-code', 'codex'] as const)(
  'hermes hook %s tells which agent made the call',
  { timeout: 60_000 },
  (agent) => {
    it('a handler scoped with when: { agent: P.not(P.nullish) } refuses the subagent, not the main agent', async () => {
      const { home, base, sub, bash, seen } = setup(agent);
      await decisionOf(agent, home, { ...base, hook_event_name: 'UserPromptSubmit', prompt: 'go' });
      const main = await decisionOf(agent, home, bash('c1', 'ls'));
      expect(main?.hookSpecificOutput?.permissionDecision).not.toBe('deny');
      const delegated = await decisionOf(agent, home, bash('c2', 'ls', sub));
      expect(delegated?.hookSpecificOutput).toMatchObject({
        permissionDecision: 'deny',
        permissionDecisionReason: expect.stringContaining('subagents may not run the shell'),
      });
      const calls = seen().filter((s) => s.hook === 'intercept_tool_call');
      expect(calls.map((s) => s.agent)).toEqual([null, { id: 'a7f3', type: 'Explore' }]);
    });

    it("before_llm_call after a subagent's tool results names the subagent", async () => {
      const { home, base, sub, afterTools, seen } = setup(agent);
      await decisionOf(agent, home, { ...base, hook_event_name: 'UserPromptSubmit', prompt: 'go' });
      await decisionOf(agent, home, afterTools('r1', sub));
      await decisionOf(agent, home, afterTools('r2', {}));
      const requests = seen().filter((s) => s.hook === 'before_llm_call');
      expect(requests.map((s) => s.agent)).toEqual([null, { id: 'a7f3', type: 'Explore' }, null]);
    });

    it("observers get agent_id and agent_type on a subagent's call, neither on the main agent's", async () => {
      const { home, base, sub, bash, events } = setup(agent);
      await decisionOf(agent, home, { ...base, hook_event_name: 'UserPromptSubmit', prompt: 'go' });
      await decisionOf(agent, home, bash('c1', 'ls'));
      await decisionOf(agent, home, bash('c2', 'ls', sub));
      const ofCall = (id: string) =>
        events()
          .filter((e) => e.tool_call_id === id)
          .map((e) => [e.event, e.agent_id, e.agent_type]);
      // A plain pass is no decision: the main agent's call has its pre_tool_call only.
      expect(ofCall('c1')).toEqual([['pre_tool_call', undefined, undefined]]);
      expect(ofCall('c2')).toEqual([
        ['pre_tool_call', 'a7f3', 'Explore'],
        ['hook_decision', 'a7f3', 'Explore'],
        ['post_tool_call', 'a7f3', 'Explore'],
      ]);
    });

    it('an agent_id or agent_type that is not a string fails the tool call closed, naming the field', async () => {
      const { home, bash } = setup(agent);
      for (const [who, field] of [
        [{ agent_id: 42 }, 'agent_id'],
        [{ agent_id: 'a1', agent_type: ['Explore'] }, 'agent_type'],
      ] as const) {
        const answer = await decisionOf(agent, home, bash('c9', 'ls', who));
        expect(answer?.hookSpecificOutput).toMatchObject({
          permissionDecision: 'deny',
          permissionDecisionReason: expect.stringContaining(`${field} must be a string`),
        });
      }
    });

    it("a subagent's calls count in the parent's turn state (same session, same turn)", async () => {
      const { home, base, sub, bash, seen } = setup(agent);
      await decisionOf(agent, home, { ...base, hook_event_name: 'UserPromptSubmit', prompt: 'go' });
      await decisionOf(agent, home, bash('c1', 'pwd'));
      await decisionOf(agent, home, { ...bash('c2', 'cat a.md', sub), tool_name: 'Read' });
      await decisionOf(agent, home, bash('c3', 'pwd'));
      const calls = seen().filter((s) => s.hook === 'intercept_tool_call');
      expect(calls.map((s) => s.calls)).toEqual([1, 2, 3]);
      expect(new Set(calls.map((s) => s.turnId)).size).toBe(1);
    });
  },
);
