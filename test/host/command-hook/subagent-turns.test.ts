import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { block, createRuntime, type SubagentSpawn } from 'hermes-extensions';
import { memoryLogger } from 'hermes-extensions/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { type CommandHookAgent, claudeCode, codex } from '../../../src/host/command-hook/agents.js';
import { runCommandHook } from '../../../src/host/command-hook/run-hook.js';
import type { RuntimeSource } from '../../../src/host/command-hook/runtime-source.js';
import { answerSchema } from '../../support/agent-answers.js';
import { tree } from '../../support/fixtures.js';
import { ext } from '../../support/helpers.js';

/**
 * A subagent's calls belong to the turn that started it (turn-store.ts, subagent-lifecycle.ts):
 * they see and add to the main agent's state, also after the main agent's `Stop` (Claude Code
 * runs subagents in the background), and also when the agent gives them a turn id of their own.
 * The turn ends when the main agent and every subagent it started have stopped.
 */
interface Seen {
  tool: string;
  agent: string | null;
  calls: number;
  spawn?: SubagentSpawn;
}

async function setup(agent: CommandHookAgent) {
  const seen: Seen[] = [];
  const prompts: string[] = [];
  const requests: Array<[string | null, number]> = [];
  const events: Array<Record<string, unknown>> = [];
  const runtime = await createRuntime({
    logger: memoryLogger(),
    extensions: [
      ext('counter', (hermes) => {
        hermes.on('intercept_tool_call', (e) => {
          e.state.calls = ((e.state.calls as number) ?? 0) + 1;
          seen.push({
            tool: e.toolName,
            agent: e.agent?.id ?? null,
            calls: e.state.calls as number,
            ...(e.spawn === undefined ? {} : { spawn: e.spawn }),
          });
          if (e.toolName === 'bash' && String(e.toolArgs.command).includes('rm ')) {
            return block('no rm');
          }
          return undefined;
        });
        hermes.on('transform_user_input', (e) => {
          prompts.push(e.userMessage);
        });
        hermes.on('before_llm_call', (e) => {
          requests.push([e.agent?.id ?? null, e.iteration]);
          // A subagent may make two model requests after its first.
          const seenBySubagent = requests.filter(([who]) => who !== null).length;
          if (e.agent !== undefined && seenBySubagent > 2) return block('enough, subagent');
          return undefined;
        });
        hermes.observe('*', (p) => {
          events.push({ ...p });
        });
      }),
    ],
  });
  const runtimes: RuntimeSource = { acquire: async () => runtime, release: async () => {} };
  const home = tree();
  const session = `${agent.name}-subagents`;
  const base = {
    session_id: session,
    cwd: home,
    ...(agent.name === 'codex' ? { turn_id: 'turn-main', model: 'gpt-5.5' } : {}),
  };
  const send = async (event: Record<string, unknown>) => {
    const answer = await runCommandHook(agent, JSON.stringify({ ...base, ...event }), {
      home,
      logger: memoryLogger(),
      runtimes,
    });
    if (answer.stdout) {
      const name = String(event.hook_event_name);
      const schema = answerSchema(agent.name, name);
      const checked = schema.safeParse(JSON.parse(answer.stdout));
      expect(checked.error?.issues, `${name}: ${answer.stdout}`).toBeUndefined();
    }
    return answer;
  };
  const bash = (id: string, command: string, who: Record<string, unknown> = {}) =>
    send({
      ...who,
      hook_event_name: 'PreToolUse',
      tool_name: 'Bash',
      tool_input: { command },
      tool_use_id: id,
    });
  const turnFile = join(home, 'turns', `${encodeURIComponent(session)}.json`);
  cleanups.push(() => runtime.close());
  return { seen, prompts, requests, events, send, bash, turnOpen: () => existsSync(turnFile) };
}

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

const sub = { agent_id: 'a4448e0c5e3d12bb4', agent_type: 'general-purpose' };
const running = {
  id: sub.agent_id,
  type: 'subagent',
  status: 'running',
  agent_type: 'general-purpose',
};
const eventNames = (events: Array<Record<string, unknown>>) =>
  events
    .map((e) => e.event)
    .filter((e) => !['hook_decision', 'pre_tool_call', 'post_tool_call'].includes(String(e)));

describe('Claude Code: a background subagent outlives the main agent’s Stop', () => {
  it('keeps the turn for its calls, and ends it at its SubagentStop', async () => {
    const hook = await setup(claudeCode);
    await hook.send({ hook_event_name: 'UserPromptSubmit', prompt: 'fix it' });
    await hook.bash('toolu_1', 'ls');
    await hook.send({ hook_event_name: 'SubagentStart', ...sub });
    // Claude Code lists the still-running subagent in its Stop: the turn is not over.
    await hook.send({ hook_event_name: 'Stop', background_tasks: [running] });
    expect(hook.turnOpen()).toBe(true);
    await hook.bash('toolu_2', 'ls src', sub);
    await hook.bash('toolu_3', 'rm -rf src', sub);
    expect(hook.seen.map((s) => [s.agent, s.calls])).toEqual([
      [null, 1],
      [sub.agent_id, 2],
      [sub.agent_id, 3],
    ]);
    await hook.send({
      hook_event_name: 'SubagentStop',
      ...sub,
      last_assistant_message: 'sub done',
      agent_transcript_path: '/dev/null',
      stop_hook_active: false,
    });
    expect(hook.turnOpen()).toBe(false);
    expect(eventNames(hook.events)).toEqual([
      'on_session_start',
      'subagent_start',
      'subagent_stop',
      'on_session_end',
    ]);
    const [start, stop] = hook.events.filter((e) => String(e.event).startsWith('subagent_'));
    const turnId = start?.turn_id;
    expect(start).toMatchObject({
      child_subagent_id: sub.agent_id,
      child_role: 'general-purpose',
      parent_turn_id: turnId,
    });
    // Told as the turn's events: the subagent is the child, not the caller.
    expect(start?.agent_id).toBeUndefined();
    expect(stop).toMatchObject({
      child_subagent_id: sub.agent_id,
      status: 'completed',
      child_summary: 'sub done',
      turn_id: turnId,
    });
    expect(typeof stop?.duration_ms).toBe('number');
    const end = hook.events.find((e) => e.event === 'on_session_end');
    expect(end).toMatchObject({ turn_id: turnId, completed: true });
    expect(end?.agent_id).toBeUndefined();
  });

  it('waits for a subagent the Stop lists as running though its SubagentStart was never sent', async () => {
    const hook = await setup(claudeCode);
    await hook.send({ hook_event_name: 'UserPromptSubmit', prompt: 'fix it' });
    await hook.bash('toolu_1', 'ls');
    await hook.send({ hook_event_name: 'Stop', background_tasks: [running] });
    await hook.bash('toolu_2', 'ls src', sub);
    expect(hook.seen.at(-1)?.calls).toBe(2);
    await hook.send({ hook_event_name: 'SubagentStop', ...sub, last_assistant_message: 'done' });
    expect(hook.turnOpen()).toBe(false);
  });

  it("a subagent whose SubagentStop's process came before its SubagentStart's does not hold the turn", async () => {
    const hook = await setup(codex);
    await hook.send({ hook_event_name: 'UserPromptSubmit', prompt: 'fix it' });
    await hook.send({ hook_event_name: 'SubagentStop', ...sub, last_assistant_message: 'done' });
    await hook.send({ hook_event_name: 'SubagentStart', ...sub });
    await hook.send({ hook_event_name: 'Stop' });
    expect(hook.turnOpen()).toBe(false);
  });

  it('ends the turn at Stop when no subagent runs, and a finished one does not hold it', async () => {
    const hook = await setup(claudeCode);
    await hook.send({ hook_event_name: 'UserPromptSubmit', prompt: 'fix it' });
    await hook.send({ hook_event_name: 'SubagentStart', ...sub });
    await hook.send({ hook_event_name: 'SubagentStop', ...sub, last_assistant_message: 'done' });
    expect(hook.turnOpen()).toBe(true);
    await hook.send({
      hook_event_name: 'Stop',
      background_tasks: [{ ...running, status: 'completed' }],
    });
    expect(hook.turnOpen()).toBe(false);
  });

  it("a Stop or SessionEnd that carries a subagent's agent_id is the subagent's: the main agent's turn goes on", async () => {
    const hook = await setup(claudeCode);
    await hook.send({ hook_event_name: 'UserPromptSubmit', prompt: 'fix it' });
    await hook.bash('toolu_1', 'ls');
    await hook.send({ hook_event_name: 'Stop', ...sub });
    await hook.send({ hook_event_name: 'SessionEnd', ...sub, reason: 'other' });
    expect(hook.turnOpen()).toBe(true);
    await hook.bash('toolu_2', 'ls');
    expect(hook.seen.at(-1)?.calls).toBe(2);
  });

  it('the next prompt starts a new turn, even while a subagent of the last one was never seen to stop', async () => {
    const hook = await setup(claudeCode);
    await hook.send({ hook_event_name: 'UserPromptSubmit', prompt: 'fix it' });
    await hook.bash('toolu_1', 'ls');
    await hook.send({ hook_event_name: 'Stop', background_tasks: [running] });
    await hook.send({ hook_event_name: 'UserPromptSubmit', prompt: 'next' });
    await hook.bash('toolu_2', 'ls');
    expect(hook.seen.at(-1)?.calls).toBe(1);
  });
});

describe("a block in a subagent's loop", () => {
  it("ends the subagent's loop, not the turn: the main agent's state goes on", async () => {
    const hook = await setup(claudeCode);
    await hook.send({ hook_event_name: 'UserPromptSubmit', prompt: 'fix it' });
    await hook.bash('toolu_1', 'ls');
    const batch = (id: string) =>
      hook.send({
        ...sub,
        hook_event_name: 'PostToolBatch',
        tool_calls: [
          { tool_name: 'Bash', tool_input: { command: 'ls' }, tool_use_id: id, tool_response: '' },
        ],
      });
    await hook.bash('toolu_2', 'ls', sub);
    await batch('toolu_2');
    await batch('toolu_2b');
    const ended = await batch('toolu_2c');
    expect(JSON.parse(ended.stdout ?? '{}')).toMatchObject({
      decision: 'block',
      reason: expect.stringContaining('enough, subagent'),
    });
    expect(hook.turnOpen()).toBe(true);
    await hook.bash('toolu_3', 'ls');
    expect(hook.seen.map((s) => s.calls)).toEqual([1, 2, 3]);
    expect(hook.events.filter((e) => e.event === 'on_session_end')).toEqual([]);
  });
});

describe('a spawn of a subagent', () => {
  const agentCall = (hook: Awaited<ReturnType<typeof setup>>) =>
    hook.send({
      hook_event_name: 'PreToolUse',
      tool_name: 'Agent',
      tool_input: { description: 'write code', prompt: 'do it', subagent_type: 'general-purpose' },
      tool_use_id: 'toolu_spawn',
    });
  const withEnv = async (value: string | undefined, fn: () => Promise<void>) => {
    const before = process.env.AI_AGENT;
    if (value === undefined) delete process.env.AI_AGENT;
    else process.env.AI_AGENT = value;
    try {
      await fn();
    } finally {
      if (before === undefined) delete process.env.AI_AGENT;
      else process.env.AI_AGENT = before;
    }
  };

  it('is a task call marked covered under a Claude Code version whose subagents reach the hook', async () => {
    const hook = await setup(claudeCode);
    await withEnv('claude-code_2-1-330_harness', () => agentCall(hook).then(() => undefined));
    expect(hook.seen).toEqual([{ tool: 'task', agent: null, calls: 1, spawn: { covered: true } }]);
  });

  it('is marked not covered, with the reason, when the hook cannot tell the version', async () => {
    const hook = await setup(claudeCode);
    await withEnv(undefined, () => agentCall(hook).then(() => undefined));
    expect(hook.seen[0]?.spawn?.covered).toBe(false);
    expect(hook.seen[0]?.spawn?.reason).toMatch(/cannot tell which version of Claude Code/);
  });

  it('is marked not covered under a version older than any checked', async () => {
    const hook = await setup(claudeCode);
    await withEnv('claude-code_1-0-0_harness', () => agentCall(hook).then(() => undefined));
    expect(hook.seen[0]?.spawn).toEqual({
      covered: false,
      reason: expect.stringContaining('Claude Code 1.0.0'),
    });
  });

  it('leaves other tools unmarked', async () => {
    const hook = await setup(claudeCode);
    await hook.bash('toolu_1', 'ls');
    expect(hook.seen[0]).not.toHaveProperty('spawn');
  });
});

describe("Codex: a subagent's own turn id does not split the main agent's turn", () => {
  it("keeps one turn's state across the main agent's and the subagent's calls", async () => {
    const hook = await setup(codex);
    await hook.send({ hook_event_name: 'UserPromptSubmit', prompt: 'fix it' });
    await hook.bash('call_1', 'ls');
    await hook.bash('call_2', 'ls src', { ...sub, turn_id: 'turn-of-the-subagent' });
    await hook.bash('call_3', 'ls', {});
    expect(hook.seen.map((s) => [s.agent, s.calls])).toEqual([
      [null, 1],
      [sub.agent_id, 2],
      [null, 3],
    ]);
    const ids = new Set(
      hook.events.filter((e) => e.event === 'pre_tool_call').map((e) => e.turn_id),
    );
    expect(ids.size).toBe(1);
  });

  it("a subagent's own UserPromptSubmit neither starts a turn nor counts as the user's input", async () => {
    const hook = await setup(codex);
    await hook.send({ hook_event_name: 'UserPromptSubmit', prompt: 'fix it' });
    await hook.bash('call_1', 'ls');
    await hook.send({
      ...sub,
      turn_id: 'turn-of-the-subagent',
      hook_event_name: 'UserPromptSubmit',
      prompt: 'read src and fix it',
    });
    await hook.bash('call_2', 'ls src', { ...sub, turn_id: 'turn-of-the-subagent' });
    await hook.bash('call_3', 'ls');
    expect(hook.seen.map((s) => s.calls)).toEqual([1, 2, 3]);
    // transform_user_input ran for the user's prompt only; before_llm_call for both first
    // requests, the subagent's with its identity.
    expect(hook.prompts).toEqual(['fix it']);
    expect(hook.requests).toEqual([
      [null, 0],
      [sub.agent_id, 0],
    ]);
    expect(hook.events.filter((e) => e.event === 'on_session_start')).toHaveLength(1);
  });
});
