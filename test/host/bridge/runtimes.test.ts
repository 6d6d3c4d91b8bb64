import { createRuntime } from 'hermes-extensions';
import { memoryLogger } from 'hermes-extensions/testing';
import { describe, expect, it } from 'vitest';
import { dispatch, serving } from '../../../src/host/bridge/methods.js';
import { ext } from '../../support/helpers.js';

/**
 * The bridge's runtimes in process (the process itself: extension-crash.test.ts): a crash is
 * handed in as the process's crash handler would, and what each call is answered is read.
 */
describe("the bridge's runtimes after a crash", () => {
  async function served() {
    const logger = memoryLogger();
    let loads = 0;
    const s = serving(
      async () => {
        loads++;
        return createRuntime({
          logger,
          extensions: [
            ext('guard', (h) =>
              h.on('intercept_tool_call', (e) =>
                e.toolName === 'hang' ? new Promise(() => {}) : undefined,
              ),
            ),
          ],
        });
      },
      '/',
      logger,
    );
    return { s, logger, loads: () => loads };
  }
  const call = (turn_id: string, tool_name: string) => ({ turn_id, tool_name, tool_args: {} });

  it('refuses the call in flight and the later calls of the turn, blaming hermes when no extension is known, and loads afresh once', async () => {
    const { s, logger, loads } = await served();
    await dispatch(s, 'turn/start', { session_id: 's', turn_id: 't1' });
    const inFlight = dispatch(s, 'intercept_tool_call', call('t1', 'hang'));
    s.runtimes.crashed({
      kind: 'unhandled rejection',
      error: new Error('lost'),
      extension: undefined,
    });
    // Another one while it is crashed is logged, not a second failure.
    s.runtimes.crashed({ kind: 'uncaught exception', error: new Error('again'), extension: 'x' });
    expect(await inFlight).toMatchObject({
      blocked: true,
      blocked_by: 'hermes',
      message: expect.stringContaining('an extension raised an unhandled rejection: Error: lost'),
    });
    expect(await dispatch(s, 'intercept_tool_call', call('t1', 'read'))).toMatchObject({
      blocked: true,
      blocked_by: 'hermes',
    });
    expect(logger.lines.map((e) => e.message).join('\n')).toContain(
      'again, after its runtime failed',
    );
    await dispatch(s, 'turn/end', { turn_id: 't1' });
    await dispatch(s, 'turn/start', { session_id: 's', turn_id: 't2' });
    await dispatch(s, 'turn/start', { session_id: 'other', turn_id: 't3' });
    expect(await dispatch(s, 'intercept_tool_call', call('t2', 'read'))).toMatchObject({
      blocked: false,
    });
    expect(loads()).toBe(2);
    await s.turns.endAll();
    await s.runtimes.close();
  });
});
