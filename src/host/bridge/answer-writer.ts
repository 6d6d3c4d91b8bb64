import type { Writable } from 'node:stream';
import type { Logger } from '../../log/logger.js';
import { errorMessage, type RpcId } from './json-rpc.js';

/**
 * Writes answers, one JSON line each, and tells the server when the host is not taking them:
 * `blocked` once `maxBufferedBytes` of answers wait in the stream, until it has drained. (Not at
 * the stream's own high-water mark: stdout's is 16 KiB, and stopping and starting that often cost
 * a pipelining host a fifth of its throughput.) A broken output (the host closed its end) drops
 * answers rather than throwing, and never blocks, so the server still reaches the end of its
 * input and ends the open turns.
 */
export class AnswerWriter {
  #broken = false;
  #corked = false;
  #drained: () => void = () => {};

  constructor(
    private readonly output: Writable,
    logger: Logger,
    private readonly maxBufferedBytes: number,
  ) {
    output.on('drain', () => this.#drained());
    output.on('error', (error) => {
      if (!this.#broken)
        logger.warn(`bridge: answers can no longer be written: ${errorMessage(error)}`);
      this.#broken = true;
      this.#drained();
    });
  }

  get blocked(): boolean {
    // Only while a 'drain' is due: a stream whose own buffer is larger never sends one.
    return (
      !this.#broken &&
      this.output.writableNeedDrain &&
      this.output.writableLength >= this.maxBufferedBytes
    );
  }

  /** Called whenever the output may have room again. */
  onDrain(listener: () => void): void {
    this.#drained = listener;
  }

  /** Throws (before writing anything) when the message is not JSON, e.g. a result with a BigInt. */
  send(message: Record<string, unknown>): void {
    this.sendLine(JSON.stringify(message));
  }

  /** One answer (or a batch's array of answers), already JSON, without its newline. */
  sendLine(json: string): void {
    const line = `${json}\n`;
    if (this.#broken || this.output.destroyed || this.output.writableEnded) return;
    // The answers of one burst of work leave in one write: a write (a system call) per answer
    // cost a pipelining host more than half again the server's CPU time per request.
    if (!this.#corked) {
      this.#corked = true;
      this.output.cork();
      process.nextTick(() => {
        this.#corked = false;
        this.output.uncork();
      });
    }
    this.output.write(line);
  }

  sendError(id: RpcId, code: number, message: string): void {
    this.send({ jsonrpc: '2.0', id, error: { code, message } });
  }
}
