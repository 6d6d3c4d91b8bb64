import { generateText, type ModelMessage, stepCountIs, tool, wrapLanguageModel } from 'ai';
import {
  type ApprovalRequest,
  ask,
  block,
  createRuntime,
  restrictTools,
  rewrite,
} from 'hermes-extensions';
import { hermesMiddleware, hermesTools, withHermes, wrapTools } from 'hermes-extensions/ai-sdk';
import { memoryLogger } from 'hermes-extensions/testing';
import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { answer, callOf, MockLanguageModel } from '../support/ai-sdk-mock.js';
import { ext } from '../support/helpers.js';

/** Sandboxes writes, then (as a validator) asks a person about every write. */
const careful = ext('careful', (h) => {
  h.on(
    'intercept_tool_call',
    (e) => rewrite({ ...e.toolArgs, path: `sandbox/${e.toolArgs.path}` }),
    {
      tools: 'write',
    },
  );
  h.on('intercept_tool_call', () => ask('writes need a look'), {
    tools: 'write',
    phase: 'validate',
  });
});

function writeTools() {
  const ran: string[] = [];
  const tools = {
    write: tool({
      description: 'Write a file',
      inputSchema: z.object({ path: z.string() }),
      execute: async ({ path }) => {
        ran.push(path);
        return `wrote ${path}`;
      },
    }),
    read: tool({
      description: 'Read a file',
      inputSchema: z.object({ path: z.string() }),
      execute: async ({ path }) => `contents of ${path}`,
    }),
  };
  return { tools, ran };
}

/** The model's request as the provider received it: its tool names. */
const toolNamesOf = (call: { tools?: Array<{ name: string }> } | undefined) =>
  (call?.tools ?? []).map((t) => t.name);

/** Everything the model was shown, as text, to look for a tool result in. */
const promptText = (call: { prompt: unknown } | undefined) => JSON.stringify(call?.prompt);

describe('hermes-extensions/ai-sdk: ask becomes the SDK tool approval', () => {
  async function firstTurn() {
    const runtime = await createRuntime({ extensions: [careful], logger: memoryLogger() });
    const { tools, ran } = writeTools();
    const model = new MockLanguageModel({
      doGenerate: [callOf('write', 'w1', { path: 'a.ts' }), answer('Done.')],
    });
    let pending: ReadonlyMap<string, ApprovalRequest> = new Map();
    const result = await runtime.runTurn({ sessionId: 's', turnId: 't1' }, async (turn) => {
      const call = await withHermes(turn, { prompt: 'write a.ts', model, tools });
      pending = call.pendingApprovals;
      return generateText({
        model: call.model,
        tools: call.tools,
        prompt: call.prompt,
        stopWhen: stepCountIs(5),
      });
    });
    return { runtime, tools, ran, model, pending, result };
  }

  /** A later turn carries on from the first one's messages and the person's answer. */
  async function answerTurn(
    first: Awaited<ReturnType<typeof firstTurn>>,
    approved: boolean,
    reason?: string,
  ) {
    const request = first.result.content.find((part) => part.type === 'tool-approval-request');
    if (request?.type !== 'tool-approval-request') throw new Error('no approval request');
    const messages: ModelMessage[] = [
      { role: 'user', content: 'write a.ts' },
      ...first.result.response.messages,
      {
        role: 'tool',
        content: [
          {
            type: 'tool-approval-response',
            approvalId: request.approvalId,
            approved,
            ...(reason === undefined ? {} : { reason }),
          },
        ],
      },
    ];
    return first.runtime.runTurn({ sessionId: 's', turnId: 't2' }, (turn) =>
      generateText({
        model: wrapLanguageModel({ model: first.model, middleware: hermesMiddleware(turn) }),
        tools: wrapTools(turn, first.tools),
        messages,
        stopWhen: stepCountIs(5),
      }),
    );
  }

  it('an ask returns a tool-approval-request; the tool does not run and the ask says why', async () => {
    const first = await firstTurn();
    expect(first.ran).toEqual([]);
    const request = first.result.content.find((part) => part.type === 'tool-approval-request');
    expect(request).toMatchObject({
      type: 'tool-approval-request',
      toolCall: { toolCallId: 'w1', toolName: 'write' },
    });
    expect(first.model.doGenerateCalls).toHaveLength(1);
    expect(first.pending.get('w1')).toEqual({
      toolName: 'write',
      toolArgs: { path: 'sandbox/a.ts' },
      toolCallId: 'w1',
      message: 'writes need a look',
      askedBy: 'careful',
      sessionId: 's',
      turnId: 't1',
      taskId: 't1',
    });
  });

  it('approved, the tool runs with the arguments the chain rewrote', async () => {
    const first = await firstTurn();
    const second = await answerTurn(first, true);
    expect(first.ran).toEqual(['sandbox/a.ts']);
    expect(second.text).toBe('Done.');
    expect(promptText(first.model.doGenerateCalls[1])).toMatch(/wrote sandbox\/a\.ts/);
  });

  it('denied, the tool does not run and the model is told the call was denied', async () => {
    const first = await firstTurn();
    const second = await answerTurn(first, false);
    expect(first.ran).toEqual([]);
    expect(second.text).toBe('Done.');
    expect(promptText(first.model.doGenerateCalls[1])).toMatch(/execution-denied/);
  });

  it('denied, the model is told why the guard asked, with the person’s own reason', async () => {
    /** The denied call's result, as the model received it. */
    const deniedOutput = (call: { prompt: unknown } | undefined) =>
      ((call?.prompt ?? []) as Array<{ role: string; content: unknown }>)
        .filter((message) => message.role === 'tool')
        .flatMap((message) => message.content as Array<Record<string, unknown>>)
        .find((part) => part.toolCallId === 'w1')?.output;
    const first = await firstTurn();
    await answerTurn(first, false);
    expect(deniedOutput(first.model.doGenerateCalls[1])).toEqual({
      type: 'execution-denied',
      reason: 'needs approval: writes need a look (asked by careful); the person declined',
    });
    const again = await firstTurn();
    await answerTurn(again, false, 'not now');
    expect(deniedOutput(again.model.doGenerateCalls[1])).toEqual({
      type: 'execution-denied',
      reason: 'needs approval: writes need a look (asked by careful); the person declined: not now',
    });
  });

  it('an approver given to withHermes decides in-process: no approval request', async () => {
    for (const approved of [true, false]) {
      const runtime = await createRuntime({ extensions: [careful], logger: memoryLogger() });
      const { tools, ran } = writeTools();
      const model = new MockLanguageModel({
        doGenerate: [callOf('write', 'w1', { path: 'a.ts' }), answer('Done.')],
      });
      const approve = vi.fn((_request: ApprovalRequest) => approved);
      const result = await runtime.runTurn({ sessionId: 's' }, async (turn) => {
        const call = await withHermes(turn, { prompt: 'go', model, tools, approve });
        return generateText({
          model: call.model,
          tools: call.tools,
          prompt: call.prompt,
          stopWhen: stepCountIs(5),
        });
      });
      expect(result.content.some((p) => p.type === 'tool-approval-request')).toBe(false);
      expect(approve).toHaveBeenCalledWith(
        expect.objectContaining({ toolArgs: { path: 'sandbox/a.ts' }, askedBy: 'careful' }),
      );
      const next = promptText(model.doGenerateCalls[1]);
      if (approved) {
        expect(ran).toEqual(['sandbox/a.ts']);
        expect(next).toMatch(/wrote sandbox\/a\.ts/);
      } else {
        expect(ran).toEqual([]);
        expect(next).toMatch(
          /needs approval: writes need a look \(asked by careful\); the person declined/,
        );
      }
    }
  });

  it('a call nobody asks about runs the chain once and is not held for approval', async () => {
    const seen: string[] = [];
    const runtime = await createRuntime({
      extensions: [
        ext('counter', (h) =>
          h.on('intercept_tool_call', (e) => void seen.push(String(e.toolCallId))),
        ),
      ],
      logger: memoryLogger(),
    });
    const { tools } = writeTools();
    const model = new MockLanguageModel({
      doGenerate: [callOf('read', 'r1', { path: 'a.ts' }), answer('Done.')],
    });
    const result = await runtime.runTurn({ sessionId: 's' }, async (turn) => {
      const call = await withHermes(turn, { prompt: 'go', model, tools });
      return generateText({
        model: call.model,
        tools: call.tools,
        prompt: call.prompt,
        stopWhen: stepCountIs(5),
      });
    });
    expect(result.text).toBe('Done.');
    expect(seen).toEqual(['r1']);
  });
});

describe('hermes-extensions/ai-sdk: restrictTools becomes the step active tools', () => {
  it('the model is offered only the tools left, and before_llm_call sees the ones offered', async () => {
    const offered: Array<readonly string[] | undefined> = [];
    const runtime = await createRuntime({
      extensions: [
        ext('read-only', (h) =>
          h.on('before_llm_call', (e) => {
            offered.push(e.tools);
            return restrictTools(['read'], 'no plan yet');
          }),
        ),
      ],
      logger: memoryLogger(),
    });
    const { tools } = writeTools();
    const model = new MockLanguageModel({
      doGenerate: [callOf('read', 'r1', { path: 'a.ts' }), answer('Done.')],
    });
    await runtime.runTurn({ sessionId: 's' }, async (turn) => {
      const call = await withHermes(turn, { prompt: 'go', model, tools });
      return generateText({
        model: call.model,
        tools: call.tools,
        prompt: call.prompt,
        stopWhen: stepCountIs(5),
      });
    });
    expect(offered).toEqual([
      ['write', 'read'],
      ['write', 'read'],
    ]);
    expect(model.doGenerateCalls.map(toolNamesOf)).toEqual([['read'], ['read']]);
    expect(promptText(model.doGenerateCalls[1])).toMatch(/contents of a\.ts/);
  });

  it("the SDK's own activeTools is what the handlers are offered", async () => {
    const offered: Array<readonly string[] | undefined> = [];
    const runtime = await createRuntime({
      extensions: [
        ext('watcher', (h) => h.on('before_llm_call', (e) => void offered.push(e.tools))),
      ],
      logger: memoryLogger(),
    });
    const { tools } = writeTools();
    const model = new MockLanguageModel({ doGenerate: [answer('Hi.')] });
    await runtime.runTurn({ sessionId: 's' }, async (turn) => {
      const call = await withHermes(turn, { prompt: 'go', model, tools });
      return generateText({
        model: call.model,
        tools: call.tools,
        prompt: call.prompt,
        activeTools: ['read'],
      });
    });
    expect(offered).toEqual([['read']]);
    expect(model.doGenerateCalls.map(toolNamesOf)).toEqual([['read']]);
  });

  it('with every tool taken away, the request has none, and a call to a hidden one is refused', async () => {
    const runtime = await createRuntime({
      extensions: [
        ext('quiet', (h) => h.on('before_llm_call', () => restrictTools([], 'answer in words'))),
      ],
      logger: memoryLogger(),
    });
    const { tools, ran } = writeTools();
    // A model that calls a tool it was not offered (a made-up or remembered name).
    const model = new MockLanguageModel({
      doGenerate: [callOf('write', 'w1', { path: 'a.ts' }), answer('Sorry.')],
    });
    await runtime.runTurn({ sessionId: 's' }, async (turn) => {
      const call = await withHermes(turn, { prompt: 'go', model, tools });
      return generateText({
        model: call.model,
        tools: call.tools,
        prompt: call.prompt,
        stopWhen: stepCountIs(5),
      });
    });
    expect(model.doGenerateCalls[0]?.tools).toBeUndefined();
    expect(ran).toEqual([]);
    expect(promptText(model.doGenerateCalls[1])).toMatch(
      /Tool \\"write\\" cannot be called: extension \\"quiet\\" took it away for this request \(answer in words\)/,
    );
  });
});

describe('hermes-extensions/ai-sdk: an approval counts only for the call it was given for', () => {
  /** Turn 1 asks about w1 (a.ts); the person's answer goes into the messages of turn 2. */
  async function approvedHistory() {
    const runtime = await createRuntime({ extensions: [careful], logger: memoryLogger() });
    const { tools } = writeTools();
    const model = new MockLanguageModel({ doGenerate: [callOf('write', 'w1', { path: 'a.ts' })] });
    const first = await runtime.runTurn({ sessionId: 's', turnId: 't1' }, async (turn) => {
      const call = await withHermes(turn, { prompt: 'write a.ts', model, tools });
      return generateText({ model: call.model, tools: call.tools, prompt: call.prompt });
    });
    const request = first.content.find((part) => part.type === 'tool-approval-request');
    if (request?.type !== 'tool-approval-request') throw new Error('no approval request');
    const answer: ModelMessage = {
      role: 'tool',
      content: [{ type: 'tool-approval-response', approvalId: request.approvalId, approved: true }],
    };
    const messages: ModelMessage[] = [
      { role: 'user', content: 'write a.ts' },
      ...first.response.messages,
      answer,
    ];
    return { runtime, messages };
  }

  it('a later call that reuses an approved call id is asked about again (approver)', async () => {
    const { runtime, messages } = await approvedHistory();
    const { tools, ran } = writeTools();
    // Turn 2: the approved call runs, then the model re-sends the same id with other input.
    const model = new MockLanguageModel({
      doGenerate: [callOf('write', 'w1', { path: 'secrets.ts' }), answer('Done.')],
    });
    const approve = vi.fn(() => false);
    await runtime.runTurn({ sessionId: 's', turnId: 't2' }, (turn) =>
      generateText({
        model: wrapLanguageModel({ model, middleware: hermesMiddleware(turn) }),
        tools: wrapTools(turn, tools, { approve }),
        messages,
        stopWhen: stepCountIs(5),
      }),
    );
    // The approver decides every ask; the SDK refuses the earlier answer (no needsApproval).
    expect(ran).toEqual([]);
    expect(approve).toHaveBeenCalledWith(
      expect.objectContaining({ toolArgs: { path: 'sandbox/secrets.ts' } }),
    );
  });

  it('a later call that reuses an approved call id gets an approval request of its own', async () => {
    const { runtime, messages } = await approvedHistory();
    const { tools, ran } = writeTools();
    const model = new MockLanguageModel({
      doGenerate: [callOf('write', 'w1', { path: 'secrets.ts' }), answer('Done.')],
    });
    let pending: ReadonlyMap<string, ApprovalRequest> = new Map();
    const result = await runtime.runTurn({ sessionId: 's', turnId: 't2' }, (turn) => {
      const wrapped = hermesTools(turn, tools);
      pending = wrapped.pendingApprovals;
      return generateText({
        model: wrapLanguageModel({ model, middleware: hermesMiddleware(turn) }),
        tools: wrapped.tools,
        messages,
        stopWhen: stepCountIs(5),
      });
    });
    expect(ran).toEqual(['sandbox/a.ts']);
    expect(result.content.filter((p) => p.type === 'tool-approval-request')).toHaveLength(1);
    expect(pending.get('w1')?.toolArgs).toEqual({ path: 'sandbox/secrets.ts' });
  });

  it('a yes for another call id does not approve this one', async () => {
    const { runtime, messages } = await approvedHistory();
    const { tools, ran } = writeTools();
    const model = new MockLanguageModel({
      doGenerate: [callOf('write', 'w2', { path: 'b.ts' }), answer('Done.')],
    });
    const result = await runtime.runTurn({ sessionId: 's', turnId: 't2' }, (turn) =>
      generateText({
        model: wrapLanguageModel({ model, middleware: hermesMiddleware(turn) }),
        tools: wrapTools(turn, tools),
        messages,
        stopWhen: stepCountIs(5),
      }),
    );
    expect(ran).toEqual(['sandbox/a.ts']);
    expect(result.content).toContainEqual(
      expect.objectContaining({
        type: 'tool-approval-request',
        toolCall: expect.objectContaining({ toolCallId: 'w2' }),
      }),
    );
  });

  it('a tool-approval-response for a call nobody asked about runs nothing', async () => {
    const runtime = await createRuntime({ extensions: [careful], logger: memoryLogger() });
    const { tools, ran } = writeTools();
    const model = new MockLanguageModel({ doGenerate: [answer('Done.')] });
    const messages: ModelMessage[] = [
      { role: 'user', content: 'write a.ts' },
      {
        role: 'assistant',
        content: [
          { type: 'tool-call', toolCallId: 'w1', toolName: 'write', input: { path: 'a.ts' } },
        ],
      },
      {
        role: 'tool',
        content: [{ type: 'tool-approval-response', approvalId: 'x', approved: true }],
      },
    ];
    await expect(
      runtime.runTurn({ sessionId: 's' }, (turn) =>
        generateText({
          model: wrapLanguageModel({ model, middleware: hermesMiddleware(turn) }),
          tools: wrapTools(turn, tools),
          messages,
        }),
      ),
    ).rejects.toThrow();
    expect(ran).toEqual([]);
  });

  it('two calls under one id are each judged by their own input', async () => {
    const runtime = await createRuntime({
      extensions: [
        ext('no-secrets', (h) =>
          h.on('intercept_tool_call', (e) =>
            String(e.toolArgs.path).includes('secret') ? block('no secrets') : undefined,
          ),
        ),
      ],
      logger: memoryLogger(),
    });
    const { tools, ran } = writeTools();
    const twoCalls = {
      ...callOf('write', 'w1', { path: 'a.ts' }),
      content: [
        ...callOf('write', 'w1', { path: 'a.ts' }).content,
        ...callOf('write', 'w1', { path: 'secret.ts' }).content,
      ],
    };
    const model = new MockLanguageModel({ doGenerate: [twoCalls, answer('Done.')] });
    await runtime.runTurn({ sessionId: 's' }, async (turn) => {
      const call = await withHermes(turn, { prompt: 'go', model, tools });
      return generateText({
        model: call.model,
        tools: call.tools,
        prompt: call.prompt,
        stopWhen: stepCountIs(5),
      });
    });
    expect(ran).toEqual(['a.ts']);
  });
});

describe('hermes-extensions/ai-sdk: a hidden tool stays hidden', () => {
  it('a tool choice that names a hidden tool does not make the model call it', async () => {
    const runtime = await createRuntime({
      extensions: [ext('read-only', (h) => h.on('before_llm_call', () => restrictTools(['read'])))],
      logger: memoryLogger(),
    });
    const { tools } = writeTools();
    const model = new MockLanguageModel({ doGenerate: [answer('Hi.')] });
    // The SDK then finds no call to the tool it named and fails the request: closed either way.
    await expect(
      runtime.runTurn({ sessionId: 's' }, async (turn) => {
        const call = await withHermes(turn, { prompt: 'go', model, tools });
        return generateText({
          model: call.model,
          tools: call.tools,
          prompt: call.prompt,
          toolChoice: { type: 'tool', toolName: 'write' },
        });
      }),
    ).rejects.toThrow(/required tool 'write'/);
    expect(model.doGenerateCalls[0]?.toolChoice).toEqual({ type: 'none' });
    expect(model.doGenerateCalls.map(toolNamesOf)).toEqual([['read']]);
  });

  it('a hidden tool called in another case does not run', async () => {
    const runtime = await createRuntime({
      extensions: [ext('read-only', (h) => h.on('before_llm_call', () => restrictTools(['read'])))],
      logger: memoryLogger(),
    });
    const { tools, ran } = writeTools();
    const model = new MockLanguageModel({
      doGenerate: [
        callOf('Write', 'w1', { path: 'a.ts' }),
        callOf('WRITE', 'w2', { path: 'b.ts' }),
        answer('Sorry.'),
      ],
    });
    await runtime.runTurn({ sessionId: 's' }, async (turn) => {
      const call = await withHermes(turn, { prompt: 'go', model, tools });
      return generateText({
        model: call.model,
        tools: call.tools,
        prompt: call.prompt,
        stopWhen: stepCountIs(5),
      });
    });
    expect(ran).toEqual([]);
  });
});
