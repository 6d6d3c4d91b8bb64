import { generateText, type ModelMessage, stepCountIs, tool, wrapLanguageModel } from 'ai';
import { ask, createRuntime, type ObserverPayload } from 'hermes-extensions';
import { hermesMiddleware, withHermes, wrapTools } from 'hermes-extensions/ai-sdk';
import { memoryLogger } from 'hermes-extensions/testing';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { answer, callOf, MockLanguageModel } from '../support/ai-sdk-mock.js';
import { ext } from '../support/helpers.js';

async function observedRuntime(events: ObserverPayload[]) {
  return createRuntime({
    logger: memoryLogger(),
    extensions: [
      ext('careful', (h) =>
        h.on('intercept_tool_call', () => ask('writes need a look'), { tools: 'write' }),
      ),
      ext('recorder', (h) => h.observe('*', (p) => void events.push(p))),
    ],
  });
}

function writeTools(ran: string[]) {
  return {
    write: tool({
      description: 'Write a file',
      inputSchema: z.object({ path: z.string() }),
      execute: async ({ path }) => {
        ran.push(path);
        return `wrote ${path}`;
      },
    }),
  };
}

const approvalEvents = (events: ObserverPayload[]) =>
  events.filter((e) => e.event === 'pre_approval_request' || e.event === 'post_approval_response');

describe('hermes-extensions/ai-sdk: approval events', () => {
  it('with an in-process approver: the request, then its answer, for the call the step asked', async () => {
    const events: ObserverPayload[] = [];
    const runtime = await observedRuntime(events);
    const ran: string[] = [];
    const model = new MockLanguageModel({
      doGenerate: [callOf('write', 'w1', { path: 'a.ts' }), answer('Done.')],
    });
    await runtime.runTurn({ sessionId: 's', turnId: 't1' }, async (turn) => {
      const call = await withHermes(turn, {
        prompt: 'write a.ts',
        model,
        tools: writeTools(ran),
        approve: async () => false,
      });
      return generateText({ ...call, stopWhen: stepCountIs(5) });
    });
    expect(ran).toEqual([]);
    const [request, response] = approvalEvents(events);
    const apiRequest = events.find((e) => e.event === 'pre_api_request');
    expect(request).toMatchObject({
      event: 'pre_approval_request',
      session_id: 's',
      turn_id: 't1',
      api_request_id: apiRequest?.api_request_id,
      tool_name: 'write',
      tool_call_id: 'w1',
      args: { path: 'a.ts' },
      description: 'writes need a look',
      pattern_key: 'careful',
      pattern_keys: ['careful'],
      surface: 'approver',
      host: 'ai_sdk',
    });
    expect(response).toMatchObject({
      event: 'post_approval_response',
      turn_id: 't1',
      tool_call_id: 'w1',
      choice: 'deny',
      granted: false,
      answered_via: 'approver',
      host: 'ai_sdk',
      duration_ms: expect.any(Number),
    });
    expect(approvalEvents(events)).toHaveLength(2);
  });

  /** Turn 1 asks through the SDK's tool approval; turn 2 carries the person's answer. */
  async function answeredLater(approved: boolean, reason?: string) {
    const events: ObserverPayload[] = [];
    const runtime = await observedRuntime(events);
    const ran: string[] = [];
    const tools = writeTools(ran);
    const model = new MockLanguageModel({
      doGenerate: [callOf('write', 'w1', { path: 'a.ts' }), answer('Done.'), answer('Again.')],
    });
    const first = await runtime.runTurn({ sessionId: 's', turnId: 't1' }, async (turn) => {
      const call = await withHermes(turn, { prompt: 'write a.ts', model, tools });
      return generateText({ ...call, stopWhen: stepCountIs(5) });
    });
    const afterFirst = approvalEvents(events).map((e) => e.event);
    const request = first.content.find((part) => part.type === 'tool-approval-request');
    if (request?.type !== 'tool-approval-request') throw new Error('no approval request');
    const messages: ModelMessage[] = [
      { role: 'user', content: 'write a.ts' },
      ...first.response.messages,
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
    const later = (turnId: string, history: ModelMessage[]) =>
      runtime.runTurn({ sessionId: 's', turnId }, (turn) =>
        generateText({
          model: wrapLanguageModel({ model, middleware: hermesMiddleware(turn) }),
          tools: wrapTools(turn, tools),
          messages: history,
          stopWhen: stepCountIs(5),
        }),
      );
    const second = await later('t2', messages);
    // The same history again (a host that resends it): the answer was told once already. The
    // answered call's result is kept as the tool gave it: AI SDK 6 puts it in the answering turn's
    // response messages, AI SDK 7 leaves it out of them, and a history without it is refused.
    const result: ModelMessage = {
      role: 'tool',
      content: [
        {
          type: 'tool-result',
          toolCallId: 'w1',
          toolName: 'write',
          output: approved
            ? { type: 'text', value: 'wrote a.ts' }
            : { type: 'execution-denied', ...(reason === undefined ? {} : { reason }) },
        },
      ],
    };
    await later('t3', [
      ...messages,
      result,
      ...second.response.messages.filter((message) => message.role !== 'tool'),
      { role: 'user', content: 'and?' },
    ]);
    return { events, afterFirst, ran };
  }

  it('through the SDK tool approval: the request in the asking turn, a yes in the answering one', async () => {
    const { events, afterFirst, ran } = await answeredLater(true);
    expect(afterFirst).toEqual(['pre_approval_request']);
    expect(ran).toEqual(['a.ts']);
    const [request, response] = approvalEvents(events);
    expect(request).toMatchObject({ turn_id: 't1', surface: 'tool_approval', host: 'ai_sdk' });
    expect(response).toMatchObject({
      event: 'post_approval_response',
      turn_id: 't2',
      requested_turn_id: 't1',
      tool_call_id: 'w1',
      pattern_key: 'careful',
      surface: 'tool_approval',
      choice: 'once',
      granted: true,
      answered_via: 'tool_approval_response',
      duration_ms: expect.any(Number),
    });
    expect(approvalEvents(events)).toHaveLength(2);
  });

  it('through the SDK tool approval: a no, with the person reason, told once', async () => {
    const { events, ran } = await answeredLater(false, 'not today');
    expect(ran).toEqual([]);
    const responses = events.filter((e) => e.event === 'post_approval_response');
    expect(responses).toHaveLength(1);
    expect(responses[0]).toMatchObject({
      turn_id: 't2',
      requested_turn_id: 't1',
      tool_call_id: 'w1',
      choice: 'deny',
      granted: false,
      answered_via: 'tool_approval_response',
      reason: 'not today',
    });
  });
});
