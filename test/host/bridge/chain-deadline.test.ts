import { createRuntime } from 'hermes-extensions';
import { memoryLogger } from 'hermes-extensions/testing';
import { describe, expect, it } from 'vitest';
import { dispatch, serving } from '../../../src/host/bridge/methods.js';
import { ext } from '../../support/helpers.js';

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Over the bridge a hook call may say how long the host waits for it: `deadline_ms`. */
describe('the bridge and the whole-chain deadline', () => {
  async function served(chainTimeoutMs?: Record<string, number>) {
    const runtime = await createRuntime({
      logger: memoryLogger(),
      extensions: ['slow-a', 'slow-b', 'slow-c'].map((name, i) =>
        ext(name, (h) => h.on('intercept_tool_call', async () => sleep(300), { priority: 10 + i })),
      ),
      ...(chainTimeoutMs === undefined ? {} : { chainTimeoutMs }),
    });
    const s = serving(async () => runtime, runtime.projectRoot, memoryLogger());
    const { turn_id } = (await dispatch(s, 'turn/start', { session_id: 's' })) as {
      turn_id: string;
    };
    const call = (extra: Record<string, unknown> = {}) =>
      dispatch(s, 'intercept_tool_call', {
        turn_id,
        tool_name: 'bash',
        tool_args: { command: 'ls' },
        ...extra,
      }) as Promise<{ blocked: boolean; message?: string; blocked_by?: string }>;
    return { runtime, call };
  }

  it("refuses a call its chain cannot decide within the request's deadline_ms, naming the handlers", async () => {
    const { runtime, call } = await served();
    const outcome = await call({ deadline_ms: 450 });
    expect(outcome).toMatchObject({ blocked: true, blocked_by: 'hermes' });
    expect(outcome.message).toMatch(
      /intercept_tool_call chain ran past the \d+ ms its host's deadline left it \(ran: .*did not run: .*slow-c\)/,
    );
    // The next call without one runs the whole chain: the deadline was this call's only.
    expect(await call()).toMatchObject({ blocked: false });
    await runtime.close();
  });

  it('keeps the configured chainTimeoutMs when it is the lower', async () => {
    const { runtime, call } = await served({ intercept_tool_call: 450 });
    const outcome = await call({ deadline_ms: 60_000 });
    expect(outcome.message).toMatch(/ran past its chainTimeoutMs of 450 ms/);
    await runtime.close();
  });

  it('refuses a deadline_ms that is not a positive number', async () => {
    const { runtime, call } = await served();
    await expect(call({ deadline_ms: 0 })).rejects.toThrow(/deadline_ms must be more than 0/);
    await expect(call({ deadline_ms: '5' })).rejects.toThrow(/deadline_ms must be a number/);
    await runtime.close();
  });
});
