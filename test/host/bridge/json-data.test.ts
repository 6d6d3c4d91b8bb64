import { PassThrough } from 'node:stream';
import { memoryLogger } from 'hermes-extensions/testing';
import { describe, expect, it } from 'vitest';
import { serveBridge } from '../../../src/host/bridge/server.js';
import { tree } from '../../support/fixtures.js';

/**
 * A guard whose results carry values JSON cannot hold. Registered with `onError: 'pass'`, the
 * policy under which a handler error would let the call through: a block must stay a block.
 */
const guard = `export default {
  name: 'meta-guard',
  setup(h) {
    const cycle = {};
    cycle.self = cycle;
    const results = {
      big: () => ({ action: 'block', value: 'no big writes', metadata: { size: 10n } }),
      cyclic: () => ({ action: 'block', value: 'no cycles', metadata: { cycle } }),
      dated: () => ({ action: 'block', value: 'not today', metadata: { at: new Date(0), fn() {} } }),
      tagged: () => ({ action: 'pass', metadata: { at: new Date(0) } }),
      rewritten: () => ({ action: 'rewrite', value: { path: 'x', when: new Date(0) } }),
    };
    h.on('intercept_tool_call', (e) => results[e.toolName]?.(), { onError: 'pass' });
  },
};
`;

/** The bridge in this process, over streams; `call` sends one request and reads its answer. */
function startBridge() {
  const home = tree({ 'extensions/meta-guard.mjs': guard });
  const input = new PassThrough();
  const output = new PassThrough();
  output.setEncoding('utf8');
  const done = serveBridge({ cwd: tree(), home, input, output, logger: memoryLogger() });
  const answers: Array<Record<string, unknown>> = [];
  const waiting: Array<() => void> = [];
  let buffered = '';
  output.on('data', (chunk: string) => {
    buffered += chunk;
    const lines = buffered.split('\n');
    buffered = lines.pop() ?? '';
    for (const line of lines) {
      answers.push(JSON.parse(line));
      waiting.shift()?.();
    }
  });
  const call = async (id: number, method: string, params: unknown) => {
    input.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    if (answers.length === 0) await new Promise<void>((resolve) => waiting.push(resolve));
    return answers.shift() as { id: number; result?: Record<string, unknown>; error?: unknown };
  };
  const stop = async () => {
    input.end();
    await done;
  };
  return { call, stop };
}

describe('bridge: what a handler returns reaches the host as JSON data', () => {
  it('a block whose metadata JSON cannot hold is answered as a block, never as -32603', async () => {
    const { call, stop } = startBridge();
    try {
      expect(await call(1, 'turn/start', { session_id: 's', turn_id: 't' })).toMatchObject({
        result: { turn_id: 't' },
      });
      const cases: Array<[string, string, RegExp]> = [
        ['big', 'no big writes', /metadata\.size: a bigint is not JSON data/],
        ['cyclic', 'no cycles', /metadata\.cycle\.self: a cycle is not JSON data/],
        ['dated', 'not today', /metadata\.at: a Date is not JSON data/],
      ];
      let id = 2;
      for (const [tool, message, reason] of cases) {
        const answer = await call(id++, 'intercept_tool_call', {
          turn_id: 't',
          tool_name: tool,
          tool_args: { path: 'a' },
        });
        expect(answer.error, tool).toBeUndefined();
        expect(answer.result, tool).toMatchObject({
          blocked: true,
          blocked_by: 'meta-guard',
          message,
          metadata: {},
        });
        const trace = answer.result?.trace as Array<{ action: string; error?: string }>;
        expect(trace[0]?.action).toBe('block');
        expect(trace[0]?.error).toMatch(reason);
      }
    } finally {
      await stop();
    }
  });

  it('a pass or rewrite with values JSON cannot hold is a handler error, not a silently changed value', async () => {
    const { call, stop } = startBridge();
    try {
      await call(1, 'turn/start', { session_id: 's', turn_id: 't' });
      for (const [id, tool, reason] of [
        [2, 'tagged', /metadata\.at: a Date is not JSON data/],
        [3, 'rewritten', /value\.when: a Date is not JSON data/],
      ] as const) {
        const answer = await call(id, 'intercept_tool_call', {
          turn_id: 't',
          tool_name: tool,
          tool_args: { path: 'a' },
        });
        expect(answer.error).toBeUndefined();
        // onError 'pass': the failed handler is skipped; nothing it returned reaches the host.
        expect(answer.result).toMatchObject({
          blocked: false,
          changed: false,
          value: { path: 'a' },
          metadata: {},
        });
        const trace = answer.result?.trace as Array<{ action: string; error?: string }>;
        expect(trace[0]).toMatchObject({ action: 'error', error: expect.stringMatching(reason) });
      }
    } finally {
      await stop();
    }
  });
});
