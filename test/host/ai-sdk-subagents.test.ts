import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { generateText, stepCountIs, streamText, tool } from 'ai';
import {
  type AgentIdentity,
  block,
  createRuntime,
  type ObserverPayload,
  P,
  type SubagentSpawn,
} from 'hermes-extensions';
import { subagentTool, withHermes } from 'hermes-extensions/ai-sdk';
import { memoryLogger } from 'hermes-extensions/testing';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import workflowGuard from '../../extensions/workflow-guard/index.js';
import { answer, callOf, MockLanguageModel, usage } from '../support/ai-sdk-mock.js';
import { tree, write } from '../support/fixtures.js';
import { ext } from '../support/helpers.js';

interface Seen {
  calls: Array<{ tool: string; agent?: AgentIdentity; spawn?: SubagentSpawn }>;
  requests: Array<string | undefined>;
  subagentOnly: string[];
  events: ObserverPayload[];
}

function recorder(seen: Seen) {
  return ext('recorder', (h) => {
    h.on('before_llm_call', (e) => void seen.requests.push(e.agent?.id));
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
    for (const event of ['subagent_start', 'subagent_stop', 'pre_tool_call'] as const)
      h.observe(event, (p) => void seen.events.push({ ...p, event } as ObserverPayload));
  });
}

const emptySeen = (): Seen => ({ calls: [], requests: [], subagentOnly: [], events: [] });

function fileTools(project: string) {
  return {
    write: tool({
      description: 'Write a file',
      inputSchema: z.object({ path: z.string(), content: z.string() }),
      execute: async ({ path, content }) => {
        write(project, { [path]: content });
        return `wrote ${path}`;
      },
    }),
    read: tool({
      description: 'Read a file',
      inputSchema: z.object({ path: z.string() }),
      execute: async ({ path }) => readFileSync(join(project, path), 'utf8'),
    }),
  };
}

const writeCall = (id: string, path: string, content = 'x') =>
  callOf('write', id, { path, content });

describe('hermes-extensions/ai-sdk: a subagent tool runs its nested generateText in the same turn', () => {
  it('judges the nested agent by the same guard: its src/ write is blocked, its read works, its plan counts for the parent', async () => {
    const project = tree({ '.git/HEAD': '', 'README.md': '# the app' });
    const seen = emptySeen();
    const runtime = await createRuntime({
      extensions: [workflowGuard, recorder(seen)],
      cwd: project,
      // workflow-guard refuses a tool it does not know before a plan: the spawning tool is named
      // a reader, so the test reaches what the subagent itself tries.
      config: {
        extensions: { 'workflow-guard': { sandbox: 'off', read_only_tools: ['delegate'] } },
      },
      logger: memoryLogger(),
    });
    const files = fileTools(project);
    const subModel = new MockLanguageModel({
      doGenerate: [
        // The attempt to get around the guard: a write delegated to the nested agent.
        writeCall('s1', 'src/app.ts'),
        callOf('read', 's2', { path: 'README.md' }),
        writeCall('s3', 'plans/active/plan.md', '# plan'),
        answer('planned it'),
      ],
    });
    let srcAfterSubagent: boolean | undefined;
    let subagentId: string | undefined;
    const tools = {
      delegate: subagentTool({
        description: 'Delegate a task to a worker agent',
        inputSchema: z.object({ task: z.string() }),
        type: 'worker',
        goal: ({ task }) => task,
        async run({ task }, subagent, { abortSignal }) {
          subagentId = subagent.agent.id;
          const nested = subagent.withHermes({ model: subModel, tools: files });
          const { text } = await generateText({
            ...nested,
            prompt: task,
            stopWhen: stepCountIs(6),
            ...(abortSignal === undefined ? {} : { abortSignal }),
          });
          srcAfterSubagent = existsSync(join(project, 'src/app.ts'));
          return text;
        },
      }),
      write: files.write,
    };
    const parentModel = new MockLanguageModel({
      doGenerate: [
        callOf('delegate', 'p1', { task: 'implement the feature in src/app.ts' }),
        writeCall('p2', 'src/app.ts', 'y'),
        answer('done'),
      ],
    });
    const result = await runtime.runTurn({ sessionId: 's', turnId: 't1' }, async (turn) => {
      const call = await withHermes(turn, {
        prompt: 'implement the feature',
        model: parentModel,
        tools,
      });
      return generateText({ ...call, stopWhen: stepCountIs(6) });
    });

    expect(result.text).toBe('done');
    expect(srcAfterSubagent).toBe(false);
    const subPrompts = subModel.doGenerateCalls.map((c) => JSON.stringify(c.prompt));
    expect(subPrompts[1]).toMatch(/blocked_by_extension.*workflow-guard/);
    expect(subPrompts[2]).toMatch(/# the app/);
    expect(readFileSync(join(project, 'plans/active/plan.md'), 'utf8')).toBe('# plan');
    // The plan the subagent wrote lets the parent write in the same turn.
    expect(readFileSync(join(project, 'src/app.ts'), 'utf8')).toBe('y');
    expect(JSON.stringify(parentModel.doGenerateCalls[1]?.prompt)).toMatch(/planned it/);

    const worker = { id: subagentId, type: 'worker' };
    expect(subagentId).toMatch(/^subagent-/);
    expect(seen.calls).toEqual([
      { tool: 'delegate', spawn: { covered: true } },
      { tool: 'write', agent: worker },
      { tool: 'read', agent: worker },
      { tool: 'write', agent: worker },
      { tool: 'write' },
    ]);
    expect(seen.subagentOnly).toEqual(['write', 'read', 'write']);
    expect(seen.requests).toEqual([
      undefined,
      subagentId,
      subagentId,
      subagentId,
      subagentId,
      undefined,
      undefined,
    ]);
    const story = seen.events.map((e) => [e.event, e.agent_id ?? e.child_subagent_id ?? '']);
    expect(story).toEqual([
      ['pre_tool_call', ''],
      ['subagent_start', subagentId],
      ['pre_tool_call', subagentId],
      ['pre_tool_call', subagentId],
      ['pre_tool_call', subagentId],
      ['subagent_stop', subagentId],
      ['pre_tool_call', ''],
    ]);
    expect(seen.events.find((e) => e.event === 'subagent_start')).toMatchObject({
      child_role: 'worker',
      child_goal: 'implement the feature in src/app.ts',
      parent_turn_id: 't1',
    });
    expect(seen.events.find((e) => e.event === 'subagent_stop')).toMatchObject({
      status: 'completed',
      child_summary: 'planned it',
      duration_ms: expect.any(Number),
    });
    expect(seen.events.find((e) => e.agent_id === subagentId)).toMatchObject({
      agent_type: 'worker',
      turn_id: 't1',
    });
    await runtime.close();
  });

  it('a nested agent of a nested agent carries its parent', async () => {
    const seen = emptySeen();
    const runtime = await createRuntime({ extensions: [recorder(seen)], logger: memoryLogger() });
    const inner = new MockLanguageModel({
      doGenerate: [callOf('look', 'l1', {}), answer('inner done')],
    });
    const middle = new MockLanguageModel({
      doGenerate: [callOf('delegate', 'm1', { task: 'look' }), answer('middle done')],
    });
    const outer = new MockLanguageModel({
      doGenerate: [callOf('delegate', 'o1', { task: 'plan' }), answer('all done')],
    });
    const look = tool({ inputSchema: z.object({}), execute: async () => 'seen' });
    const delegateTo = (
      type: string,
      model: InstanceType<typeof MockLanguageModel>,
      tools: object,
    ) =>
      subagentTool({
        inputSchema: z.object({ task: z.string() }),
        type,
        async run({ task }, subagent) {
          const nested = subagent.withHermes({ model, tools: tools as { look: typeof look } });
          return (await generateText({ ...nested, prompt: task, stopWhen: stepCountIs(4) })).text;
        },
      });
    const result = await runtime.runTurn({ sessionId: 's' }, async (turn) => {
      const call = await withHermes(turn, {
        prompt: 'go',
        model: outer,
        tools: {
          delegate: delegateTo('planner', middle, {
            delegate: delegateTo('looker', inner, { look }),
          }),
        },
      });
      return generateText({ ...call, stopWhen: stepCountIs(4) });
    });
    expect(result.text).toBe('all done');
    const [spawn, nestedSpawn, leaf] = seen.calls;
    expect(spawn).toEqual({ tool: 'delegate', spawn: { covered: true } });
    expect(nestedSpawn).toMatchObject({
      tool: 'delegate',
      agent: { type: 'planner' },
      spawn: { covered: true },
    });
    expect(nestedSpawn?.agent?.parent).toBeUndefined();
    expect(leaf).toMatchObject({
      tool: 'look',
      agent: { type: 'looker', parent: nestedSpawn?.agent?.id },
    });
    const lifecycle = seen.events
      .filter((e) => String(e.event).startsWith('subagent_'))
      .map((e) => [e.event, e.child_role, e.parent_subagent_id]);
    expect(lifecycle).toEqual([
      ['subagent_start', 'planner', undefined],
      ['subagent_start', 'looker', nestedSpawn?.agent?.id],
      ['subagent_stop', 'looker', nestedSpawn?.agent?.id],
      ['subagent_stop', 'planner', undefined],
    ]);
    await runtime.close();
  });

  it('a blocked spawn runs nothing, and outside withHermes a subagent tool refuses to run', async () => {
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
    let ran = false;
    const delegate = subagentTool({
      inputSchema: z.object({}),
      run: () => {
        ran = true;
        return 'ran';
      },
    });
    const model = new MockLanguageModel({
      doGenerate: [callOf('delegate', 'd1', {}), answer('fine')],
    });
    await runtime.runTurn({ sessionId: 's' }, async (turn) => {
      const call = await withHermes(turn, { prompt: 'go', model, tools: { delegate } });
      return generateText({ ...call, stopWhen: stepCountIs(3) });
    });
    expect(ran).toBe(false);
    expect(JSON.stringify(model.doGenerateCalls[1]?.prompt)).toMatch(/no subagents here/);
    expect(seen.events.filter((e) => String(e.event).startsWith('subagent_'))).toEqual([]);
    const execute = delegate.execute as (input: unknown, options: unknown) => unknown;
    expect(() => execute({}, { toolCallId: 'x', messages: [] })).toThrow(/outside withHermes/);
    await runtime.close();
  });

  it('a nested call that fails stops the subagent as failed', async () => {
    const seen = emptySeen();
    const runtime = await createRuntime({ extensions: [recorder(seen)], logger: memoryLogger() });
    const model = new MockLanguageModel({
      doGenerate: [callOf('delegate', 'd1', {}), answer('recovered')],
    });
    await runtime.runTurn({ sessionId: 's' }, async (turn) => {
      const call = await withHermes(turn, {
        prompt: 'go',
        model,
        tools: {
          delegate: subagentTool({
            inputSchema: z.object({}),
            run: () => {
              throw new Error('nested provider down');
            },
          }),
        },
      });
      return generateText({ ...call, stopWhen: stepCountIs(3) });
    });
    expect(seen.events.find((e) => e.event === 'subagent_stop')).toMatchObject({
      status: 'failed',
    });
    await runtime.close();
  });

  it('a nested streamText runs before_llm_call with the subagent on it: a block answers for the subagent', async () => {
    const seen = emptySeen();
    const runtime = await createRuntime({
      extensions: [
        recorder(seen),
        ext('no-nested-models', (h) =>
          h.on('before_llm_call', (e) => block(`not for ${e.agent?.type}`), {
            when: { agent: P.not(P.nullish) },
            // After the recorder, which a block would keep from seeing the request.
            priority: 200,
          }),
        ),
      ],
      logger: memoryLogger(),
    });
    let streamed = false;
    const subModel = new MockLanguageModel({
      doStream: async () => {
        streamed = true;
        return {
          stream: new ReadableStream({
            start(controller) {
              controller.enqueue({ type: 'stream-start', warnings: [] } as never);
              controller.enqueue({
                type: 'finish',
                usage,
                finishReason: { unified: 'stop', raw: undefined },
              } as never);
              controller.close();
            },
          }),
        };
      },
    });
    const model = new MockLanguageModel({
      doGenerate: [callOf('delegate', 'd1', { task: 'x' }), answer('done')],
    });
    const result = await runtime.runTurn({ sessionId: 's' }, async (turn) => {
      const call = await withHermes(turn, {
        prompt: 'go',
        model,
        tools: {
          delegate: subagentTool({
            inputSchema: z.object({ task: z.string() }),
            type: 'streamer',
            run: ({ task }, subagent) => {
              const nested = subagent.withHermes({ model: subModel });
              return streamText({ ...nested, prompt: task }).text;
            },
          }),
        },
      });
      return generateText({ ...call, stopWhen: stepCountIs(3) });
    });
    expect(result.text).toBe('done');
    expect(streamed).toBe(false);
    expect(seen.requests).toHaveLength(3);
    expect(seen.requests[1]).toMatch(/^subagent-/);
    expect(JSON.stringify(model.doGenerateCalls[1]?.prompt)).toMatch(/not for streamer/);
    expect(seen.events.find((e) => e.event === 'subagent_stop')).toMatchObject({
      status: 'completed',
      child_summary: 'not for streamer',
    });
    await runtime.close();
  });
});
