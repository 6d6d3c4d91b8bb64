import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  type AgentIdentity,
  block,
  createRuntime,
  type ObserverPayload,
  P,
  runConversation,
  type SubagentResult,
  type SubagentSpawn,
  subagentTool,
  type Tools,
} from 'hermes-extensions';
import { memoryLogger, scriptedModel, toolCall } from 'hermes-extensions/testing';
import { describe, expect, it } from 'vitest';
import workflowGuard from '../../extensions/workflow-guard/index.js';
import { tree, write } from '../support/fixtures.js';
import { ext } from '../support/helpers.js';

/** What a recorder extension saw: every tool call's agent and spawn, and the observer events. */
interface Seen {
  calls: Array<{ tool: string; agent?: AgentIdentity; spawn?: SubagentSpawn }>;
  requests: Array<AgentIdentity | undefined>;
  subagentOnly: string[];
  userInputs: string[];
  events: ObserverPayload[];
}

const OBSERVED = ['subagent_start', 'subagent_stop', 'pre_tool_call', 'pre_api_request'] as const;

function recorder(seen: Seen) {
  return ext('recorder', (h) => {
    h.on('transform_user_input', (e) => void seen.userInputs.push(e.userMessage));
    h.on('before_llm_call', (e) => void seen.requests.push(e.agent));
    h.on('intercept_tool_call', (e) => {
      seen.calls.push({
        tool: e.toolName,
        ...(e.agent === undefined ? {} : { agent: e.agent }),
        ...(e.spawn === undefined ? {} : { spawn: e.spawn }),
      });
    });
    h.on('intercept_tool_call', (e) => void seen.subagentOnly.push(e.toolName), {
      when: { agent: P.not(P.nullish) },
    });
    for (const event of OBSERVED)
      h.observe(event, (p) => void seen.events.push({ ...p, event } as ObserverPayload));
  });
}

function emptySeen(): Seen {
  return { calls: [], requests: [], subagentOnly: [], userInputs: [], events: [] };
}

/** File tools on a real folder. */
function fileTools(project: string): Tools {
  return {
    write: {
      description: 'Write a file',
      execute: ({ path, content }) => {
        write(project, { [String(path)]: String(content) });
        return `wrote ${path}`;
      },
    },
    read: {
      description: 'Read a file',
      execute: ({ path }) => readFileSync(join(project, String(path)), 'utf8'),
    },
  };
}

/**
 * workflow-guard refuses a tool it does not know before a plan; the spawning tool is named a
 * reader here, so the test reaches what the subagent itself tries.
 */
async function guarded(project: string, seen: Seen) {
  return createRuntime({
    extensions: [workflowGuard, recorder(seen)],
    cwd: project,
    config: {
      extensions: { 'workflow-guard': { sandbox: 'off', read_only_tools: ['delegate', 'list'] } },
    },
    logger: memoryLogger(),
  });
}

describe('runConversation: a subagent tool runs a nested agent in the same turn', () => {
  it('judges the subagent by the same guard: its src/ write before a plan is blocked, its read and its plan count for the parent', async () => {
    const project = tree({ '.git/HEAD': '', 'README.md': '# the app' });
    const seen = emptySeen();
    const runtime = await guarded(project, seen);
    const files = fileTools(project);
    const subModel = scriptedModel([
      // The attempt to get around the guard: the parent has no write tool, the subagent does.
      { content: '', toolCalls: [toolCall('write', { path: 'src/app.ts', content: 'x' }, 's1')] },
      { content: '', toolCalls: [toolCall('read', { path: 'README.md' }, 's2')] },
      {
        content: '',
        toolCalls: [toolCall('write', { path: 'plans/active/plan.md', content: '# plan' }, 's3')],
      },
      { content: 'planned it' },
    ]);
    let sub: SubagentResult | undefined;
    let srcAfterSubagent: boolean | undefined;
    const tools: Tools = {
      delegate: subagentTool({
        description: 'Delegate a task to a worker agent',
        type: 'worker',
        async execute({ task }, { runSubagent }) {
          sub = await runSubagent({
            id: 'worker-1',
            prompt: String(task),
            systemPrompt: 'You are a worker.',
            model: subModel,
            tools: files,
          });
          srcAfterSubagent = existsSync(join(project, 'src/app.ts'));
          return sub.finalResponse;
        },
      }),
      list: { description: 'List files', execute: () => 'README.md' },
      write: files.write as Tools[string],
    };
    const parentModel = scriptedModel([
      {
        content: '',
        toolCalls: [
          toolCall('delegate', { task: 'implement the feature in src/app.ts' }, 'p1'),
          // The parent's own tool after the subagent's requests: still offered to the parent.
          toolCall('list', {}, 'p2'),
        ],
      },
      { content: '', toolCalls: [toolCall('write', { path: 'src/app.ts', content: 'y' }, 'p3')] },
      { content: 'done' },
    ]);
    const result = await runConversation({
      runtime,
      sessionId: 's',
      turnId: 't1',
      systemPrompt: 'You are the lead.',
      userMessage: 'implement the feature',
      model: parentModel,
      tools,
    });

    // The subagent's write was blocked by workflow-guard and src/ stayed unchanged meanwhile.
    const [subWrite, subRead, subPlan] = sub?.toolCalls ?? [];
    expect(subWrite).toMatchObject({ name: 'write', blocked: true, status: 'blocked' });
    expect(subWrite?.result).toMatch(/workflow-guard/);
    expect(srcAfterSubagent).toBe(false);
    expect(subRead).toMatchObject({ name: 'read', status: 'ok', result: '# the app' });
    expect(subPlan).toMatchObject({ name: 'write', status: 'ok' });
    expect(sub?.agent).toEqual({ id: 'worker-1', type: 'worker' });
    expect(sub?.finalResponse).toBe('planned it');
    // The plan the subagent wrote lets the parent write in the same turn.
    expect(result.toolCalls.map((c) => [c.id, c.status])).toEqual([
      ['p1', 'ok'],
      ['p2', 'ok'],
      ['p3', 'ok'],
    ]);
    expect(readFileSync(join(project, 'src/app.ts'), 'utf8')).toBe('y');
    expect(result.finalResponse).toBe('done');

    // Every call of the subagent reached the chain with its identity; the spawn was marked.
    const worker = { id: 'worker-1', type: 'worker' };
    expect(seen.calls).toEqual([
      { tool: 'delegate', spawn: { covered: true } },
      { tool: 'write', agent: worker },
      { tool: 'read', agent: worker },
      { tool: 'write', agent: worker },
      { tool: 'list' },
      { tool: 'write' },
    ]);
    expect(seen.subagentOnly).toEqual(['write', 'read', 'write']);
    expect(seen.requests).toEqual([
      undefined,
      worker,
      worker,
      worker,
      worker,
      undefined,
      undefined,
    ]);
    // transform_user_input ran on the user's words only, not on the subagent's task.
    // (workflow-guard rewrote it to its plan command first.)
    expect(seen.userInputs).toEqual([expect.stringMatching(/implement the feature$/)]);

    // Observers: the start before the subagent's first request, the stop after its last call.
    const story = seen.events.map((e) => [e.event, e.agent_id ?? e.child_subagent_id ?? '']);
    expect(story).toEqual([
      ['pre_api_request', ''],
      ['pre_tool_call', ''],
      ['subagent_start', 'worker-1'],
      ['pre_api_request', 'worker-1'],
      ['pre_tool_call', 'worker-1'],
      ['pre_api_request', 'worker-1'],
      ['pre_tool_call', 'worker-1'],
      ['pre_api_request', 'worker-1'],
      ['pre_tool_call', 'worker-1'],
      ['pre_api_request', 'worker-1'],
      ['subagent_stop', 'worker-1'],
      ['pre_tool_call', ''],
      ['pre_api_request', ''],
      ['pre_tool_call', ''],
      ['pre_api_request', ''],
    ]);
    const start = seen.events.find((e) => e.event === 'subagent_start');
    const stop = seen.events.find((e) => e.event === 'subagent_stop');
    expect(start).toMatchObject({
      child_subagent_id: 'worker-1',
      child_role: 'worker',
      child_goal: 'implement the feature in src/app.ts',
      session_id: 's',
      turn_id: 't1',
      parent_turn_id: 't1',
    });
    expect(start?.agent_id).toBeUndefined();
    expect(stop).toMatchObject({
      child_subagent_id: 'worker-1',
      status: 'completed',
      child_summary: 'planned it',
      duration_ms: expect.any(Number),
    });
    const subRequest = seen.events.find((e) => e.agent_id === 'worker-1');
    expect(subRequest).toMatchObject({ agent_type: 'worker', session_id: 's', turn_id: 't1' });
    await runtime.close();
  });

  it('a nested agent of a nested agent carries its parent; both stop in order', async () => {
    const seen = emptySeen();
    const runtime = await createRuntime({ extensions: [recorder(seen)], logger: memoryLogger() });
    const leaf: Tools = { look: { execute: () => 'seen' } };
    const delegateTo = (id: string, model: ReturnType<typeof scriptedModel>, tools: Tools) =>
      subagentTool({
        type: id.split('-')[0],
        async execute({ task }, { runSubagent }) {
          const run = await runSubagent({
            id,
            prompt: String(task),
            systemPrompt: id,
            model,
            tools,
          });
          return run.finalResponse;
        },
      });
    const inner = scriptedModel([
      { content: '', toolCalls: [toolCall('look', {}, 'l1')] },
      { content: 'inner done' },
    ]);
    const middle = scriptedModel([
      { content: '', toolCalls: [toolCall('delegate', { task: 'look' }, 'm1')] },
      { content: 'middle done' },
    ]);
    const outer = scriptedModel([
      { content: '', toolCalls: [toolCall('delegate', { task: 'plan' }, 'o1')] },
      { content: 'all done' },
    ]);
    const result = await runConversation({
      runtime,
      sessionId: 's',
      systemPrompt: 'lead',
      userMessage: 'go',
      model: outer,
      tools: {
        delegate: delegateTo('planner-1', middle, {
          delegate: delegateTo('looker-1', inner, leaf),
        }),
      },
    });
    expect(result.toolCalls[0]).toMatchObject({ status: 'ok', result: 'middle done' });
    expect(seen.calls).toEqual([
      { tool: 'delegate', spawn: { covered: true } },
      { tool: 'delegate', agent: { id: 'planner-1', type: 'planner' }, spawn: { covered: true } },
      { tool: 'look', agent: { id: 'looker-1', type: 'looker', parent: 'planner-1' } },
    ]);
    const lifecycle = seen.events
      .filter((e) => String(e.event).startsWith('subagent_'))
      .map((e) => [e.event, e.child_subagent_id, e.parent_subagent_id, e.agent_id]);
    expect(lifecycle).toEqual([
      ['subagent_start', 'planner-1', undefined, undefined],
      ['subagent_start', 'looker-1', 'planner-1', 'planner-1'],
      ['subagent_stop', 'looker-1', 'planner-1', 'planner-1'],
      ['subagent_stop', 'planner-1', undefined, undefined],
    ]);
    await runtime.close();
  });

  it('a blocked spawn runs nothing: no subagent, no model request, no lifecycle event', async () => {
    const seen = emptySeen();
    const runtime = await createRuntime({
      extensions: [
        recorder(seen),
        ext('no-delegation', (h) =>
          h.on('intercept_tool_call', (e) => (e.spawn ? block('no subagents here') : undefined)),
        ),
      ],
      logger: memoryLogger(),
    });
    let executed = false;
    const subModel = scriptedModel([{ content: 'should not run' }]);
    const result = await runConversation({
      runtime,
      sessionId: 's',
      systemPrompt: 'lead',
      userMessage: 'go',
      model: scriptedModel([
        { content: '', toolCalls: [toolCall('delegate', { task: 'x' }, 'd1')] },
        { content: 'fine' },
      ]),
      tools: {
        delegate: subagentTool({
          async execute(_args, { runSubagent }) {
            executed = true;
            return (
              await runSubagent({ prompt: 'x', systemPrompt: '', model: subModel, tools: {} })
            ).finalResponse;
          },
        }),
      },
    });
    expect(result.toolCalls[0]).toMatchObject({ blocked: true, blockedBy: 'no-delegation' });
    expect(executed).toBe(false);
    expect(subModel.requests).toHaveLength(0);
    expect(seen.events.filter((e) => String(e.event).startsWith('subagent_'))).toEqual([]);
    await runtime.close();
  });

  it("the turn's signal cancels the subagent: subagent_stop says cancelled", async () => {
    const seen = emptySeen();
    const runtime = await createRuntime({ extensions: [recorder(seen)], logger: memoryLogger() });
    const controller = new AbortController();
    const subModel = scriptedModel([
      { content: '', toolCalls: [toolCall('stop', {}, 'x1'), toolCall('stop', {}, 'x2')] },
      { content: 'never' },
    ]);
    const result = await runConversation({
      runtime,
      sessionId: 's',
      systemPrompt: 'lead',
      userMessage: 'go',
      signal: controller.signal,
      model: scriptedModel([
        { content: '', toolCalls: [toolCall('delegate', { task: 'x' }, 'd1')] },
        { content: 'never' },
      ]),
      tools: {
        delegate: subagentTool({
          async execute(_args, { runSubagent }) {
            const run = await runSubagent({
              prompt: 'x',
              systemPrompt: '',
              model: subModel,
              tools: { stop: { execute: () => controller.abort() } },
            });
            return { cancelled: run.cancelled, calls: run.toolCalls.map((c) => c.status) };
          },
        }),
      },
    });
    expect(result.cancelled).toBe(true);
    expect(JSON.parse(result.toolCalls[0]?.result ?? '')).toEqual({
      cancelled: true,
      calls: ['ok', 'cancelled'],
    });
    expect(subModel.requests).toHaveLength(1);
    expect(seen.events.find((e) => e.event === 'subagent_stop')).toMatchObject({
      status: 'cancelled',
    });
    await runtime.close();
  });

  it('a subagent whose model fails stops as failed, and the spawning tool fails with it', async () => {
    const seen = emptySeen();
    const runtime = await createRuntime({ extensions: [recorder(seen)], logger: memoryLogger() });
    const result = await runConversation({
      runtime,
      sessionId: 's',
      systemPrompt: 'lead',
      userMessage: 'go',
      model: scriptedModel([
        { content: '', toolCalls: [toolCall('delegate', { task: 'x' }, 'd1')] },
        { content: 'recovered' },
      ]),
      tools: {
        delegate: subagentTool({
          execute: (_args, { runSubagent }) =>
            runSubagent({
              prompt: 'x',
              systemPrompt: '',
              model: {
                complete: () => Promise.reject(new Error('provider down')),
              },
              tools: {},
            }),
        }),
      },
    });
    expect(result.toolCalls[0]).toMatchObject({ status: 'error' });
    expect(result.toolCalls[0]?.result).toMatch(/provider down/);
    expect(seen.events.find((e) => e.event === 'subagent_stop')).toMatchObject({
      status: 'failed',
    });
    await runtime.close();
  });

  it('fails closed: a subagent tool run outside runConversation, or given wrong options, starts nothing', async () => {
    const tool = subagentTool({ execute: () => 'ran' });
    expect(() => tool.execute({})).toThrow(/run it through runConversation/);
    const runtime = await createRuntime({ extensions: [], logger: memoryLogger() });
    const result = await runConversation({
      runtime,
      sessionId: 's',
      systemPrompt: 'lead',
      userMessage: 'go',
      model: scriptedModel([
        { content: '', toolCalls: [toolCall('delegate', {}, 'd1')] },
        { content: 'ok' },
      ]),
      tools: {
        delegate: subagentTool({
          execute: (_args, { runSubagent }) =>
            runSubagent({ prompt: 'x', systemPrompt: '', tools: {} } as never),
        }),
      },
    });
    expect(result.toolCalls[0]?.result).toMatch(
      /runSubagent\(options\): model must be a ModelClient/,
    );
    await runtime.close();
  });

  it("a subagent's calls count toward its parent's turn: one budget for both, in one state", async () => {
    const states: Array<Record<string, unknown>> = [];
    const runtime = await createRuntime({
      extensions: [
        ext('budget', (h) => {
          const calls = h.turnState(() => ({ made: 0 }));
          h.on('intercept_tool_call', (e) => {
            states.push(e.state);
            const budget = calls(e);
            budget.made++;
            return budget.made > 3
              ? block(`call budget of 3 spent (${e.agent?.id ?? 'main'})`)
              : undefined;
          });
        }),
      ],
      logger: memoryLogger(),
    });
    let sub: SubagentResult | undefined;
    const result = await runConversation({
      runtime,
      sessionId: 's',
      systemPrompt: 'lead',
      userMessage: 'go',
      model: scriptedModel([
        { content: '', toolCalls: [toolCall('look', {}, 'p1'), toolCall('delegate', {}, 'p2')] },
        { content: '', toolCalls: [toolCall('look', {}, 'p3')] },
        { content: 'done' },
      ]),
      tools: {
        look: { execute: () => 'seen' },
        delegate: subagentTool({
          async execute(_args, { runSubagent }) {
            sub = await runSubagent({
              id: 'w',
              prompt: 'look twice',
              systemPrompt: '',
              model: scriptedModel([
                {
                  content: '',
                  toolCalls: [toolCall('look', {}, 's1'), toolCall('look', {}, 's2')],
                },
                { content: 'looked' },
              ]),
              tools: { look: { execute: () => 'seen' } },
            });
            return sub.finalResponse;
          },
        }),
      },
    });
    // p1, p2 (the spawn) and s1 spend the budget; s2 and the parent's p3 are refused.
    expect(sub?.toolCalls.map((c) => c.status)).toEqual(['ok', 'blocked']);
    expect(sub?.toolCalls[1]?.result).toMatch(/budget of 3 spent \(w\)/);
    expect(result.toolCalls.map((c) => c.status)).toEqual(['ok', 'ok', 'blocked']);
    expect(new Set(states).size).toBe(1);
    await runtime.close();
  });
});
