import {
  type Approver,
  ask,
  createRuntime,
  type ObserverPayload,
  rewrite,
  runConversation,
  type Tools,
} from 'hermes-extensions';
import { memoryLogger, scriptedModel, toolCall } from 'hermes-extensions/testing';
import { describe, expect, it } from 'vitest';
import { TurnTelemetry } from '../../src/observe/turn-telemetry.js';
import { ext } from '../support/helpers.js';

/**
 * The approval events of the reference loop: `pre_approval_request` when an `ask` goes to the
 * approver, `post_approval_response` when its answer comes back (or does not).
 */
const careful = ext('careful', (h) => {
  h.on(
    'intercept_tool_call',
    (e) => rewrite({ ...e.toolArgs, command: `${e.toolArgs.command} -i` }),
    {
      tools: 'bash',
    },
  );
  h.on('intercept_tool_call', () => ask('deletes files'), { tools: 'bash', phase: 'validate' });
});
const second = ext('second-opinion', (h) =>
  h.on('intercept_tool_call', () => ask('touches the disk'), { tools: 'bash', phase: 'validate' }),
);

async function observed(events: ObserverPayload[], observe: '*' | 'pre_tool_call' = '*') {
  return createRuntime({
    logger: memoryLogger(),
    extensions: [
      careful,
      second,
      ext('recorder', (h) => h.observe(observe, (p) => void events.push(p))),
    ],
  });
}

const ran: string[] = [];
const tools = (): Tools => ({
  bash: {
    execute: ({ command }) => {
      ran.push(String(command));
      return 'done';
    },
  },
});

async function turn(events: ObserverPayload[], approve: Approver | undefined) {
  const runtime = await observed(events);
  const result = await runConversation({
    runtime,
    sessionId: 's1',
    turnId: 't1',
    userMessage: 'clean up',
    systemPrompt: '',
    model: scriptedModel(
      [
        { content: '', toolCalls: [toolCall('bash', { command: 'ls a' }, 'c1')] },
        { content: 'ok' },
      ],
      { name: 'test-model' },
    ),
    tools: tools(),
    ...(approve === undefined ? {} : { approve }),
  });
  await runtime.close();
  return result;
}

const approvalEvents = (events: ObserverPayload[]) =>
  events.filter((e) => e.event === 'pre_approval_request' || e.event === 'post_approval_response');

describe('approval events of the reference loop', () => {
  it('an approved ask: the request names the call, its asks and who asked; the answer is "once"', async () => {
    const events: ObserverPayload[] = [];
    const result = await turn(events, () => true);
    expect(result.toolCalls[0]?.status).toBe('ok');
    const [request, response] = approvalEvents(events);
    const apiRequest = events.find((e) => e.event === 'pre_api_request');
    expect(request).toEqual({
      event: 'pre_approval_request',
      telemetry_schema_version: 'hermes.observer.v1',
      session_id: 's1',
      turn_id: 't1',
      task_id: 't1',
      platform: 'cli',
      model: 'test-model',
      api_request_id: apiRequest?.api_request_id,
      api_call_count: 1,
      tool_name: 'bash',
      tool_call_id: 'c1',
      args: { command: 'ls a -i' },
      command: 'ls a -i',
      description: 'deletes files',
      pattern_key: 'careful',
      pattern_keys: ['careful', 'second-opinion'],
      asked_by: 'careful',
      surface: 'approver',
      host: 'run_conversation',
    });
    expect(response).toMatchObject({
      event: 'post_approval_response',
      session_id: 's1',
      turn_id: 't1',
      tool_name: 'bash',
      tool_call_id: 'c1',
      pattern_key: 'careful',
      surface: 'approver',
      host: 'run_conversation',
      choice: 'once',
      granted: true,
      timed_out: false,
      answered_via: 'approver',
      duration_ms: expect.any(Number),
    });
    expect(response?.failure).toBeUndefined();
    // In the order things happen: the request after the call's decision, the answer before it runs.
    const order = events.map((e) => e.event);
    expect(order.indexOf('hook_decision')).toBeLessThan(order.indexOf('pre_approval_request'));
    expect(order.indexOf('post_approval_response')).toBeLessThan(order.indexOf('post_tool_call'));
  });

  it('a declined ask: "deny", not granted, and the call is blocked', async () => {
    const events: ObserverPayload[] = [];
    const result = await turn(events, async () => false);
    expect(result.toolCalls[0]?.status).toBe('blocked');
    const [, response] = approvalEvents(events);
    expect(response).toMatchObject({ choice: 'deny', granted: false, timed_out: false });
    expect(response?.failure).toBeUndefined();
  });

  it('an approver that throws: "unanswered", with the failure', async () => {
    const events: ObserverPayload[] = [];
    await turn(events, () => {
      throw new Error('the terminal went away');
    });
    const [, response] = approvalEvents(events);
    expect(response).toMatchObject({
      choice: 'unanswered',
      granted: false,
      timed_out: false,
      answered_via: 'approver',
      failure: 'the approver failed: the terminal went away',
    });
  });

  it('an approver that gives up waiting (a TimeoutError): "timeout"', async () => {
    const events: ObserverPayload[] = [];
    const result = await turn(events, () => {
      throw new DOMException('nobody answered within 1 ms', 'TimeoutError');
    });
    expect(result.toolCalls[0]).toMatchObject({
      status: 'blocked',
      approval: { approved: false, timedOut: true },
    });
    const [, response] = approvalEvents(events);
    expect(response).toMatchObject({ choice: 'timeout', granted: false, timed_out: true });
  });

  it('no approver: the request still goes out, and the answer is "unanswered" from nobody', async () => {
    const events: ObserverPayload[] = [];
    await turn(events, undefined);
    const [request, response] = approvalEvents(events);
    expect(request?.event).toBe('pre_approval_request');
    expect(response).toMatchObject({
      choice: 'unanswered',
      answered_via: 'none',
      failure: 'no approver configured',
    });
  });

  it('an observer of the approval events that throws changes nothing: the approved call runs', async () => {
    const logger = memoryLogger();
    const runtime = await createRuntime({
      logger,
      extensions: [
        careful,
        ext('broken', (h) => {
          h.observe('pre_approval_request', () => {
            throw new Error('exporter down');
          });
          h.observe('post_approval_response', () => Promise.reject(new Error('exporter down')));
        }),
      ],
    });
    const result = await runConversation({
      runtime,
      sessionId: 's1',
      userMessage: 'go',
      systemPrompt: '',
      model: scriptedModel([
        { content: '', toolCalls: [toolCall('bash', { command: 'ls a' }, 'c1')] },
        { content: 'ok' },
      ]),
      tools: tools(),
      approve: () => true,
    });
    await runtime.close();
    expect(result.toolCalls[0]).toMatchObject({ status: 'ok', approval: { approved: true } });
    expect(logger.lines.map((e) => e.message).join('\n')).toMatch(
      /observer of pre_approval_request failed/,
    );
  });

  it('secrets in the arguments are redacted, as in every event', async () => {
    const events: ObserverPayload[] = [];
    const runtime = await observed(events);
    await runConversation({
      runtime,
      sessionId: 's1',
      userMessage: 'go',
      systemPrompt: '',
      model: scriptedModel([
        {
          content: '',
          // A command the protected-ground rule can read (it refuses a shell call with an
          // argument it does not know, and sandboxes one it cannot read).
          toolCalls: [toolCall('bash', { command: 'echo sk-abcdefghijklmnop' }, 'c1')],
        },
        { content: 'ok' },
      ]),
      tools: tools(),
      approve: () => true,
    });
    const [request] = approvalEvents(events);
    const shown = String((request?.args as { command?: unknown } | undefined)?.command);
    expect(shown).not.toContain('sk-abcdefghijklmnop');
    expect(shown).toContain('[REDACTED]');
    expect(Object.isFrozen(request)).toBe(true);
  });

  it('builds no approval payload, and keeps no wait, when nobody observes the approval events', () => {
    const emitted: string[] = [];
    const sink = {
      has: (event: string) => event === 'pre_tool_call',
      emit: (event: string) => void emitted.push(event),
    };
    const telemetry = new TurnTelemetry(sink, {
      session_id: 's',
      turn_id: 't',
      task_id: 't',
      platform: 'cli',
    });
    let reads = 0;
    // Every field of the asked call is a getter that counts: building a payload would read them.
    const counted = <T>(value: T) => ({
      get value() {
        reads++;
        return value;
      },
    });
    const asked = {
      get toolName() {
        return counted('bash').value;
      },
      get toolCallId() {
        return counted('c1').value;
      },
      get toolArgs() {
        return counted({ command: 'ls a' }).value;
      },
      get ask() {
        return counted({ message: 'deletes files', askedBy: 'careful' }).value;
      },
      get trace() {
        return counted([]).value;
      },
      surface: 'approver',
      host: 'run_conversation',
    };
    const pending = telemetry.approvalRequested(asked);
    expect(pending).toBeUndefined();
    telemetry.approvalAnswered(pending, { choice: 'once', answeredVia: 'approver' });
    expect(reads).toBe(0);
    expect(emitted).toEqual([]);
  });
});
