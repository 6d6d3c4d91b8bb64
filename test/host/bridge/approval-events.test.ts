import { ask, createRuntime, type ObserverPayload } from 'hermes-extensions';
import { memoryLogger } from 'hermes-extensions/testing';
import { describe, expect, it } from 'vitest';
import { dispatch, serving } from '../../../src/host/bridge/methods.js';
import { ext } from '../../support/helpers.js';

/**
 * Over the bridge the host asks the person, so the framework sees neither the question put nor
 * the answer: the host reports both with `event`, as it reports its model requests.
 */
describe('the bridge and approvals', () => {
  it("passes the host's approval request and answer on to observers, sanitized", async () => {
    const events: ObserverPayload[] = [];
    const runtime = await createRuntime({
      logger: memoryLogger(),
      extensions: [
        ext('careful', (h) => h.on('intercept_tool_call', () => ask('deletes files'))),
        ext('recorder', (h) => h.observe('*', (p) => void events.push(p))),
      ],
    });
    const served = serving(async () => runtime, runtime.projectRoot, memoryLogger());
    const { turn_id } = (await dispatch(served, 'turn/start', { session_id: 's' })) as {
      turn_id: string;
    };
    const outcome = (await dispatch(served, 'intercept_tool_call', {
      turn_id,
      tool_name: 'bash',
      tool_args: { command: 'rm a' },
      tool_call_id: 'c1',
    })) as { ask?: unknown };
    expect(outcome.ask).toEqual({ message: 'deletes files', asked_by: 'careful' });
    const ids = { session_id: 's', turn_id, tool_call_id: 'c1', pattern_key: 'careful' };
    const delivered = await dispatch(served, 'event', {
      event: 'pre_approval_request',
      ...ids,
      args: { command: 'rm a', token: 'secret' },
      surface: 'terminal',
    });
    expect(delivered).toEqual({ delivered: true });
    await dispatch(served, 'event', {
      event: 'post_approval_response',
      ...ids,
      choice: 'session',
      duration_ms: 1200,
    });
    const approvals = events.filter((e) => e.event.includes('approval'));
    expect(approvals).toMatchObject([
      { event: 'pre_approval_request', args: { token: '[REDACTED]' }, surface: 'terminal' },
      { event: 'post_approval_response', choice: 'session', duration_ms: 1200 },
    ]);
    await runtime.close();
  });
});
