import type { Readable } from 'node:stream';
import type { Logger } from '../../log/logger.js';
import { errorMessage } from './json-rpc.js';

/** A line longer than the cap: only its length was kept, never its bytes. */
export class LineTooLong {
  constructor(
    /** Bytes of the line without its newline. */
    readonly bytes: number,
  ) {}
}

export type Line = Buffer | LineTooLong;

const NEWLINE = 0x0a;

/**
 * Cuts a byte stream into lines. Each chunk is searched once from where the last line ended, and
 * the pieces of a line that spans chunks are joined once, when its newline comes: linear in the
 * input (joining the whole buffer on every chunk made a 50 MB line cost seconds and gigabytes).
 * A line longer than `maxLineBytes` is not kept: its pieces are dropped as they come, so at most
 * `maxLineBytes` of it is ever held, and it comes out as a `LineTooLong` once its newline does.
 * Works on bytes, so the cap is in bytes and a character cut between chunks stays whole (a
 * newline byte never occurs inside a multi-byte UTF-8 character).
 */
export class LineSplitter {
  #pieces: Buffer[] = [];
  #heldBytes = 0;
  /** Bytes of the current line so far, once it is past the cap (its pieces are dropped). */
  #droppedBytes: number | undefined;

  constructor(readonly maxLineBytes: number) {}

  /** Bytes held of the line not yet ended. */
  get bufferedBytes(): number {
    return this.#heldBytes;
  }

  /** The lines `chunk` ends, without their newlines; the rest waits for the next chunk. */
  *push(chunk: Buffer): Generator<Line> {
    let start = 0;
    while (start < chunk.length) {
      const newline = chunk.indexOf(NEWLINE, start);
      this.#add(chunk.subarray(start, newline === -1 ? chunk.length : newline));
      if (newline === -1) return;
      yield this.#take();
      start = newline + 1;
    }
  }

  /** The last line, when the input ended without a newline after it. */
  end(): Line | undefined {
    if (this.#heldBytes === 0 && this.#droppedBytes === undefined) return undefined;
    return this.#take();
  }

  #add(piece: Buffer): void {
    if (this.#droppedBytes !== undefined) {
      this.#droppedBytes += piece.length;
    } else if (this.#heldBytes + piece.length > this.maxLineBytes) {
      this.#droppedBytes = this.#heldBytes + piece.length;
      this.#pieces = [];
      this.#heldBytes = 0;
    } else if (piece.length > 0) {
      this.#pieces.push(piece);
      this.#heldBytes += piece.length;
    }
  }

  #take(): Line {
    const line =
      this.#droppedBytes !== undefined
        ? new LineTooLong(this.#droppedBytes)
        : this.#pieces.length === 1
          ? (this.#pieces[0] as Buffer)
          : Buffer.concat(this.#pieces, this.#heldBytes);
    this.#pieces = [];
    this.#heldBytes = 0;
    this.#droppedBytes = undefined;
    return line;
  }
}

/**
 * The lines of `input`, read only as fast as they are taken: while the caller holds off asking
 * for the next line, nothing more is read than the stream's own buffer, and the writer on the
 * other end of a pipe is held up by the pipe. An input that fails or is destroyed ends like one
 * that closed (logged, unless it was only closed early).
 */
export async function* readLines(
  input: Readable,
  maxLineBytes: number,
  logger: Logger,
): AsyncGenerator<Line> {
  const splitter = new LineSplitter(maxLineBytes);
  try {
    for await (const chunk of input) {
      yield* splitter.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
    }
  } catch (error) {
    if ((error as { code?: unknown })?.code !== 'ERR_STREAM_PREMATURE_CLOSE') {
      logger.warn(
        `bridge: reading requests failed, treated as the end of input: ${errorMessage(error)}`,
      );
    }
  }
  const last = splitter.end();
  if (last !== undefined) yield last;
}
