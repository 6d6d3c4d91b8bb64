import { createInterface } from 'node:readline';
import { PassThrough } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { memoryLogger } from 'hermes-extensions/testing';
import { describe, expect, it } from 'vitest';
import { LineSplitter, LineTooLong } from '../../../src/host/bridge/line-splitter.js';
import { type BridgeOptions, serveBridge } from '../../../src/host/bridge/server.js';
import { tree } from '../../support/fixtures.js';

type Limits = Pick<
  BridgeOptions,
  'maxLineBytes' | 'maxConcurrentRequests' | 'maxBufferedAnswerBytes'
>;

/** The bridge in this process, between two real streams: the host writes `input`, reads `output`. */
function bridgeBetweenStreams(limits: Limits = {}, outputHighWaterMark = 1024) {
  const input = new PassThrough();
  const output = new PassThrough({ highWaterMark: outputHighWaterMark });
  const done = serveBridge({
    cwd: tree({ '.git/HEAD': '' }),
    home: tree(),
    input,
    output,
    logger: memoryLogger(),
    ...limits,
  });
  const request = (id: number, method = 'initialize', params: unknown = {}) =>
    `${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`;
  /** Starts reading: every answer, in the order it was written, once the server has finished. */
  const answers = async () => {
    const lines: Array<Record<string, unknown>> = [];
    createInterface({ input: output }).on('line', (line) => lines.push(JSON.parse(line)));
    await done;
    await new Promise((resolve) => setImmediate(resolve));
    return lines;
  };
  return { input, output, done, request, answers };
}

/** Polls `measure` until it gives the same value three times in a row: the server has stopped. */
async function whenSteady(measure: () => number): Promise<number> {
  let last = Number.NaN;
  let same = 0;
  for (let round = 0; round < 500 && same < 3; round++) {
    await sleep(20);
    const now = measure();
    same = now === last ? same + 1 : 0;
    last = now;
  }
  return last;
}

describe('the bridge under a host that stops reading', () => {
  it('stops taking requests while its output is not drained, then answers them all in order', async () => {
    const { input, output, done, request, answers } = bridgeBetweenStreams({
      maxConcurrentRequests: 8,
      maxBufferedAnswerBytes: 4096,
    });
    let finished = false;
    void done.then(() => {
      finished = true;
    });
    const total = 2000;
    for (let id = 1; id <= total; id++) input.write(request(id));
    input.end();

    // Nobody reads `output`: what the server has answered stays in its buffers.
    const heldBytes = await whenSteady(() => output.writableLength + output.readableLength);
    const finishedWhileBlocked = finished;

    const all = await answers();
    expect(all.map((answer) => answer.id)).toEqual(Array.from({ length: total }, (_, i) => i + 1));
    const answerBytes = Buffer.byteLength(`${JSON.stringify(all[0])}\n`);
    // 4 KiB of answers, the PassThrough's other 1 KiB side and the 8 requests in flight, with room
    // to spare; without back-pressure every one of the 2,000 answers is held.
    expect(heldBytes / answerBytes).toBeLessThan(60);
    expect(finishedWhileBlocked).toBe(false);
  });
});

describe('pipelined turns', () => {
  it('starts the next turn of a session sent right behind the end of its last one', async () => {
    const { input, request, answers } = bridgeBetweenStreams();
    input.write(request(1, 'turn/start', { session_id: 's', turn_id: 'a' }));
    input.write(request(2, 'turn/end', { turn_id: 'a' }));
    input.write(request(3, 'turn/start', { session_id: 's', turn_id: 'a' }));
    input.write(request(4, 'turn/end', { turn_id: 'a' }));
    input.write(request(5, 'turn/start', { session_id: 's' }));
    input.end();
    const byId = new Map((await answers()).map((answer) => [answer.id, answer]));
    expect(byId.get(2)).toMatchObject({ result: { ended: true } });
    expect(byId.get(3)).toMatchObject({ result: { turn_id: 'a' } });
    expect(byId.get(4)).toMatchObject({ result: { ended: true } });
    expect(byId.get(5)).toMatchObject({ result: { turn_id: expect.any(String) } });
  });
});

describe('request lines', () => {
  it('answers a line past the cap with -32600 and id null, then serves the next line', async () => {
    const { input, request, answers } = bridgeBetweenStreams({ maxLineBytes: 1000 });
    const head = '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"pad":"';
    input.write(head);
    for (let i = 0; i < 50; i++) input.write('x'.repeat(100));
    input.write('"}}\n');
    const fits = `{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"pad":"`;
    input.write(`${fits}${'y'.repeat(1000 - fits.length - 3)}"}}\n`);
    input.write(request(3));
    input.end();
    const all = await answers();
    expect(all).toMatchObject([
      { id: null, error: { code: -32600, message: expect.stringMatching(/1000 bytes/) } },
      { id: 2, result: { protocol: 'hermes-extensions/1' } },
      { id: 3, result: { protocol: 'hermes-extensions/1' } },
    ]);
  });
});

describe('LineSplitter', () => {
  const texts = (lines: Iterable<unknown>) =>
    [...lines].map((line) => (line instanceof LineTooLong ? line : String(line)));

  it('splits lines across chunks, keeps a character cut between chunks whole, and ends with the last line', () => {
    const splitter = new LineSplitter(100);
    const euro = Buffer.from('€');
    expect(texts(splitter.push(Buffer.from('one\ntw')))).toEqual(['one']);
    expect(texts(splitter.push(Buffer.concat([Buffer.from('o '), euro.subarray(0, 1)])))).toEqual(
      [],
    );
    expect(
      texts(splitter.push(Buffer.concat([euro.subarray(1), Buffer.from('\r\n\nthree')]))),
    ).toEqual(['two €\r', '']);
    expect(texts([splitter.end()].filter(Boolean))).toEqual(['three']);
    expect(splitter.end()).toBeUndefined();
  });

  it('never holds more than the cap of a long line, and reports it once its newline comes', () => {
    const splitter = new LineSplitter(4096);
    const seen: unknown[] = [];
    let most = 0;
    for (let i = 0; i < 1024; i++) {
      seen.push(...texts(splitter.push(Buffer.alloc(1024, 'x'))));
      most = Math.max(most, splitter.bufferedBytes);
    }
    expect(most).toBeLessThanOrEqual(4096);
    expect(seen).toEqual([]);
    const [tooLong, next] = texts(splitter.push(Buffer.from('x\n{"ok":1}\n')));
    expect(tooLong).toBeInstanceOf(LineTooLong);
    expect((tooLong as LineTooLong).bytes).toBe(1024 * 1024 + 1);
    expect(next).toBe('{"ok":1}');
  });

  it('reports a long last line that has no newline at the end of the input', () => {
    const splitter = new LineSplitter(8);
    expect(texts(splitter.push(Buffer.from('0123456789')))).toEqual([]);
    expect(splitter.end()).toBeInstanceOf(LineTooLong);
  });
});
