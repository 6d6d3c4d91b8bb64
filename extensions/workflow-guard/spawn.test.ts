import type { ToolCallInput } from 'hermes-extensions';
import { createRuntime } from 'hermes-extensions';
import { memoryLogger } from 'hermes-extensions/testing';
import { describe, expect, it } from 'vitest';
import { tree, write } from '../../test/support/fixtures.js';
import workflowGuard from './index.js';

const PLAN = 'plans/active/plan.md';
const UNCOVERED =
  'Claude Code 2.1.50 is older than every version known to send its subagents\u2019 tool calls to hooks';

const project = () => tree({ 'src/app.ts': 'export const app = 1;\n', 'plans/.keep': '' });

async function decide(root: string, call: ToolCallInput, config: Record<string, unknown> = {}) {
  const runtime = await createRuntime({
    extensions: [workflowGuard],
    cwd: root,
    config: { extensions: { 'workflow-guard': { sandbox: 'off', ...config } } },
    logger: memoryLogger(),
  });
  return runtime.runTurn({ sessionId: 's' }, (turn) => turn.interceptToolCall(call));
}

const agentCall = (spawn?: ToolCallInput['spawn']): ToolCallInput => ({
  toolName: 'Agent',
  toolArgs: { description: 'write code', prompt: 'edit src/app.ts', subagent_type: 'general' },
  ...(spawn === undefined ? {} : { spawn }),
});

/** Calls that must stay blocked before a plan whatever the host says about a subagent. */
const BYPASSES: Array<[string, ToolCallInput, Record<string, unknown>?]> = [
  ['a spawn whose subagent is not covered', agentCall({ covered: false, reason: UNCOVERED })],
  ['a spawn not covered, without a reason', agentCall({ covered: false })],
  [
    'a spawn not covered, with unknown tools allowed',
    agentCall({ covered: false, reason: UNCOVERED }),
    { unknown_tools: 'allow' },
  ],
  ['a spawn tool the host did not mark', agentCall()],
  ['task, unmarked', { toolName: 'task', toolArgs: { prompt: 'edit src/app.ts' } }],
  [
    'a writer marked as a covered spawn',
    {
      toolName: 'Write',
      toolArgs: { file_path: 'src/app.ts', content: 'x' },
      spawn: { covered: true },
    },
  ],
  [
    'an edit marked as a covered spawn',
    {
      toolName: 'edit',
      toolArgs: { path: 'src/app.ts', old_string: 'a', new_string: 'b' },
      spawn: { covered: true },
    },
  ],
  [
    'a shell call marked as a covered spawn',
    { toolName: 'bash', toolArgs: { command: 'echo x > src/app.ts' }, spawn: { covered: true } },
  ],
  [
    'a shell call that starts an agent, marked as a covered spawn',
    { toolName: 'bash', toolArgs: { command: 'claude -p "edit src"' }, spawn: { covered: true } },
  ],
  [
    "a covered subagent's own write",
    {
      toolName: 'Write',
      toolArgs: { file_path: 'src/app.ts', content: 'x' },
      agent: { id: 'a1', type: 'general-purpose' },
    },
  ],
];

describe('workflow-guard without a plan: subagent spawns', () => {
  it.each(BYPASSES)('blocks %s', async (_label, call, config) => {
    const outcome = await decide(project(), call, config);
    expect(outcome, JSON.stringify(call)).toMatchObject({
      blocked: true,
      message: expect.stringContaining(`Write the plan at ${PLAN}`),
    });
  });

  it('says why a spawn is refused and how to go on: plan first, or upgrade the agent', async () => {
    const outcome = await decide(project(), agentCall({ covered: false, reason: UNCOVERED }));
    if (!outcome.blocked) throw new Error('the spawn was not blocked');
    expect(outcome.message).toContain(UNCOVERED);
    expect(outcome.message).toMatch(/subagent/);
    expect(outcome.message).toMatch(/upgrade/i);
    expect(outcome.message).toContain('hermes extensions doctor');
  });

  it('does not put an uncovered spawn to a person (on_violation: ask): it blocks', async () => {
    const outcome = await decide(project(), agentCall({ covered: false, reason: UNCOVERED }), {
      on_violation: 'ask',
    });
    expect(outcome).toMatchObject({
      blocked: true,
      message: expect.stringMatching(/^Blocked by workflow-guard/),
    });
  });

  it('an unmarked spawn tool is judged as an unknown tool, as before', async () => {
    expect(await decide(project(), agentCall())).toMatchObject({
      blocked: true,
      message: expect.stringContaining('not a tool known to only read'),
    });
  });

  it('lets a covered spawn through: its subagent\u2019s calls are each judged', async () => {
    const outcome = await decide(project(), agentCall({ covered: true }));
    expect(outcome).not.toHaveProperty('message');
    expect(outcome.blocked).toBe(false);
  });

  it('judges a writer marked as a spawn as a writer: writing the plan still passes', async () => {
    const outcome = await decide(project(), {
      toolName: 'Write',
      toolArgs: { file_path: PLAN, content: '# Plan\n' },
      spawn: { covered: false, reason: UNCOVERED },
    });
    expect(outcome.blocked).toBe(false);
  });
});

describe('workflow-guard with a plan: subagent spawns', () => {
  it.each([
    ['covered', agentCall({ covered: true })],
    ['not covered', agentCall({ covered: false, reason: UNCOVERED })],
    ['unmarked', agentCall()],
  ])('lets a spawn %s through once the plan exists', async (_label, call) => {
    const root = project();
    write(root, { [PLAN]: '# Plan\nEdit src/app.ts.\n' });
    const outcome = await decide(root, call);
    expect(outcome).not.toHaveProperty('message');
    expect(outcome.blocked).toBe(false);
  });
});
