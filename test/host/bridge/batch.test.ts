import { createInterface } from 'node:readline';
import { PassThrough } from 'node:stream';
import { memoryLogger } from 'hermes-extensions/testing';
import { describe, expect, it } from 'vitest';
import { serveBridge } from '../../../src/host/bridge/server.js';
import { tree } from '../../support/fixtures.js';

/** The bridge in this process: every line given is sent, then the input closes; all answer lines. */
async function serveLines(...lines: string[]): Promise<unknown[]> {
  const input = new PassThrough();
  const output = new PassThrough();
  const answers: unknown[] = [];
  createInterface({ input: output }).on('line', (line) => answers.push(JSON.parse(line)));
  const done = serveBridge({
    cwd: tree({ '.git/HEAD': '' }),
    home: tree(),
    input,
    output,
    logger: memoryLogger(),
  });
  for (const line of lines) input.write(`${line}\n`);
  input.end();
  await done;
  await new Promise((resolve) => setImmediate(resolve));
  return answers;
}

const rpc = (id: number | undefined, method: string, params: unknown = {}) => ({
  jsonrpc: '2.0',
  ...(id === undefined ? {} : { id }),
  method,
  params,
});

const batch = (...elements: unknown[]) => JSON.stringify(elements);

describe('JSON-RPC batches (an array of requests on one line)', () => {
  it('answers every request of a batch in one array, in request order, and runs each', async () => {
    const answers = await serveLines(
      batch(rpc(1, 'initialize'), rpc(2, 'no/such'), rpc(3, 'turn/start', { session_id: 42 })),
    );
    expect(answers).toHaveLength(1);
    expect(answers[0]).toMatchObject([
      { jsonrpc: '2.0', id: 1, result: { protocol: 'hermes-extensions/1' } },
      { jsonrpc: '2.0', id: 2, error: { code: -32601 } },
      { jsonrpc: '2.0', id: 3, error: { code: -32602 } },
    ]);
  });

  it('runs the elements of one session in order, as separate requests would', async () => {
    const call = { tool_name: 'read', tool_args: { path: 'a' } };
    const answers = await serveLines(
      batch(
        rpc(1, 'turn/start', { session_id: 's', turn_id: 'a' }),
        rpc(2, 'intercept_tool_call', { turn_id: 'a', ...call }),
        rpc(3, 'turn/start', { session_id: 't', turn_id: 'b' }),
        rpc(4, 'turn/end', { turn_id: 'a' }),
        rpc(5, 'turn/start', { session_id: 's', turn_id: 'a2' }),
        rpc(6, 'intercept_tool_call', { turn_id: 'b', ...call }),
        rpc(7, 'intercept_tool_call', { turn_id: 'a2', ...call }),
      ),
    );
    expect(answers).toMatchObject([
      [
        { id: 1, result: { turn_id: 'a' } },
        { id: 2, result: { blocked: false, value: { path: 'a' } } },
        { id: 3, result: { turn_id: 'b' } },
        { id: 4, result: { ended: true } },
        // Not -32002 (the session's turn "a" still open): the end ran before this start.
        { id: 5, result: { turn_id: 'a2' } },
        { id: 6, result: { blocked: false } },
        { id: 7, result: { blocked: false } },
      ],
    ]);
  });

  it('answers no notification, and nothing at all for a batch of notifications only', async () => {
    const answers = await serveLines(
      batch(rpc(undefined, 'initialize'), rpc(1, 'initialize'), rpc(undefined, 'no/such')),
      batch(rpc(undefined, 'initialize'), rpc(undefined, 'event', { event: 'api_request' })),
      JSON.stringify(rpc(2, 'initialize')),
    );
    // Lines are answered as they finish: the batch's answer and the single one in either order.
    expect(answers).toHaveLength(2);
    const initialized = { protocol: 'hermes-extensions/1' };
    expect(answers.find(Array.isArray)).toEqual([
      { jsonrpc: '2.0', id: 1, result: expect.objectContaining(initialized) },
    ]);
    expect(answers.find((answer) => !Array.isArray(answer))).toMatchObject({
      id: 2,
      result: initialized,
    });
  });

  it('answers an empty batch with one -32600, not an array', async () => {
    const answers = await serveLines('[]');
    expect(answers).toEqual([
      { jsonrpc: '2.0', id: null, error: { code: -32600, message: expect.any(String) } },
    ]);
  });

  it('answers each invalid element with its own -32600 and id null, and runs the valid ones', async () => {
    const answers = await serveLines(
      batch(1, rpc(1, 'initialize'), 'x', [rpc(2, 'initialize')], { foo: 'boo' }, null),
    );
    const invalidOnly = await serveLines('[1,2,3]');
    const invalid = {
      jsonrpc: '2.0',
      id: null,
      error: { code: -32600, message: expect.any(String) },
    };
    expect(answers).toEqual([
      [
        invalid,
        {
          jsonrpc: '2.0',
          id: 1,
          result: expect.objectContaining({ protocol: 'hermes-extensions/1' }),
        },
        invalid,
        invalid,
        invalid,
        invalid,
      ],
    ]);
    expect(invalidOnly).toEqual([[invalid, invalid, invalid]]);
  });

  it('answers a batch that is no JSON with one -32700', async () => {
    const answers = await serveLines(
      '[{"jsonrpc":"2.0","method":"initialize","id":1},{"jsonrpc":"2.0","method"',
    );
    expect(answers).toEqual([
      { jsonrpc: '2.0', id: null, error: { code: -32700, message: expect.any(String) } },
    ]);
  });
});
