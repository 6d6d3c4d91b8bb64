import { createRuntime } from 'hermes-extensions';
import { modelCallBudget, toolCallBudget } from 'hermes-extensions/policy';
import { memoryLogger } from 'hermes-extensions/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { type CommandHookAgent, claudeCode, codex } from '../../src/host/command-hook/agents.js';
import { runCommandHook } from '../../src/host/command-hook/run-hook.js';
import type { RuntimeSource } from '../../src/host/command-hook/runtime-source.js';
import { tree } from '../support/fixtures.js';
import { ext } from '../support/helpers.js';

/**
 * Budgets through the command hooks, in process: every hook call loads the turn's state from
 * `$HERMES_HOME/turns/` as JSON and saves it back, as separate hook processes do, so a budget's
 * count must survive that round trip, reach the subagents of the turn, and go with the turn.
 */
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

async function hookOf(agent: CommandHookAgent, limits: { tools?: number; models?: number }) {
  const runtime = await createRuntime({
    logger: memoryLogger(),
    extensions: [
      ext('limits', (hermes) => {
        if (limits.tools !== undefined) {
          hermes.on(
            'intercept_tool_call',
            toolCallBudget(hermes, { max: limits.tools, tools: 'bash' }),
          );
        }
        if (limits.models !== undefined) {
          hermes.on('before_llm_call', modelCallBudget(hermes, { max: limits.models }));
        }
      }),
    ],
  });
  cleanups.push(() => runtime.close());
  const runtimes: RuntimeSource = { acquire: async () => runtime, release: async () => {} };
  const home = tree();
  const base = {
    session_id: `${agent.name}-budget`,
    cwd: home,
    ...(agent.name === 'codex' ? { turn_id: 'turn-1', model: 'gpt-5.5' } : {}),
  };
  const send = async (event: Record<string, unknown>) => {
    const answer = await runCommandHook(agent, JSON.stringify({ ...base, ...event }), {
      home,
      logger: memoryLogger(),
      runtimes,
    });
    return answer.stdout ? (JSON.parse(answer.stdout) as Record<string, unknown>) : {};
  };
  let id = 0;
  const bash = (who: Record<string, unknown> = {}) =>
    send({
      ...who,
      hook_event_name: 'PreToolUse',
      tool_name: 'Bash',
      tool_input: { command: 'ls' },
      tool_use_id: `toolu_${++id}`,
    });
  return { send, bash };
}

const decision = (answer: Record<string, unknown>) =>
  (answer.hookSpecificOutput as { permissionDecision?: string } | undefined)?.permissionDecision;

describe.each([claudeCode, codex])('%s: budgets through the command hook', (agent) => {
  it('counts tool calls across hook processes, a subagent’s too, and starts over next turn', async () => {
    const hook = await hookOf(agent, { tools: 2 });
    await hook.send({ hook_event_name: 'UserPromptSubmit', prompt: 'look around' });
    expect(decision(await hook.bash())).not.toBe('deny');
    expect(
      decision(await hook.bash({ agent_id: 'a1b2c3', agent_type: 'general-purpose' })),
    ).not.toBe('deny');
    const third = await hook.bash();
    expect(decision(third)).toBe('deny');
    expect(JSON.stringify(third)).toMatch(/at most 2 calls of bash per turn/);
    await hook.send({ hook_event_name: 'Stop' });

    await hook.send({
      hook_event_name: 'UserPromptSubmit',
      prompt: 'again',
      ...(agent.name === 'codex' ? { turn_id: 'turn-2' } : {}),
    });
    expect(decision(await hook.bash(agent.name === 'codex' ? { turn_id: 'turn-2' } : {}))).not.toBe(
      'deny',
    );
  });
});

describe('Claude Code: a model-call budget through the command hook', () => {
  it('lets the prompt’s request through and ends the turn at the next one past the budget', async () => {
    const hook = await hookOf(claudeCode, { models: 1 });
    expect(
      JSON.stringify(await hook.send({ hook_event_name: 'UserPromptSubmit', prompt: 'go' })),
    ).not.toMatch(/budget/);
    await hook.bash();
    const after = await hook.send({ hook_event_name: 'PostToolBatch', tool_calls: [] });
    expect(after).toEqual({
      decision: 'block',
      reason: expect.stringMatching(/at most 1 model requests per turn/),
    });
  });
});
