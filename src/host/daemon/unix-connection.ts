/**
 * The hook client's connection to the daemon's socket (ask.ts), without `node:net` where it can.
 *
 * Loading `node:net` starts Node's stream machinery, about 25 modules that are not in Node's
 * start-up snapshot: on Node 20 that is most of what a hook call through a warm daemon costs over
 * a bare `node -e 0` (BENCHMARKS.md, "The hook client's own start"). The client needs one
 * connection, one line written and lines read, which the socket's handle itself does, reached
 * through `process.binding` ('pipe_wrap', 'stream_wrap' and 'uv' are on Node's list of bindings
 * it still hands out, undeprecated at run time). Whenever those are not there as this file
 * expects them (another Node, `--pending-deprecation`, which would print a warning into the
 * hook's answer), the connection is `node:net`'s, with the same events: ask.ts cannot tell them
 * apart. A handle that misbehaves ends in an error, a close without an answer or the deadline,
 * each of which answers the event in-process (client.ts): never an allow.
 *
 * Bundled into the hook client: Node's built-ins only (.dependency-cruiser.cjs, CLIENT_LEAVES).
 */
import { constants } from 'node:os';

/** What the connection tells its user, in this order: connected, data…, then end or error. */
export interface ConnectionEvents {
  connect(): void;
  /** Bytes as they arrive: a line, or a character, may be split between two calls. */
  data(chunk: Buffer): void;
  /** The daemon closed its side. */
  end(): void;
  /** `code` as Node names errors (`ENOENT`, `ECONNREFUSED` …). */
  error(code: string | undefined, message: string): void;
}

export interface Connection {
  write(text: string): void;
  /** Stops holding the process open for this connection (it ends when the daemon closes it). */
  release(): void;
  /** Closes it now; nothing more is reported. */
  destroy(): void;
}

interface Bindings {
  Pipe: new (type: number) => PipeHandle;
  PipeConnectWrap: new () => { oncomplete?: (status: number) => void };
  socketType: number;
  WriteWrap: new () => { handle?: PipeHandle; oncomplete?: (status: number) => void };
  state: Int32Array;
  readBytes: number;
  bufferOffset: number;
  eof: number;
}

interface PipeHandle {
  connect(request: object, path: string): number;
  writeUtf8String(request: object, text: string): number;
  readStart(): number;
  readStop(): number;
  onread?: (buffer: ArrayBuffer | undefined) => void;
  unref(): void;
  close(): void;
}

type Binding = (name: string) => Record<string, unknown>;

/** The handle's bindings when they are there as expected; undefined sends ask.ts to `node:net`. */
function bindings(): Bindings | undefined {
  const binding = (process as unknown as { binding?: Binding }).binding;
  if (typeof binding !== 'function' || pendingDeprecation()) return undefined;
  try {
    const pipe = binding('pipe_wrap');
    const stream = binding('stream_wrap');
    const uv = binding('uv');
    const socketType = (pipe.constants as { SOCKET?: unknown } | undefined)?.SOCKET;
    const found = {
      Pipe: pipe.Pipe,
      PipeConnectWrap: pipe.PipeConnectWrap,
      socketType,
      WriteWrap: stream.WriteWrap,
      state: stream.streamBaseState,
      readBytes: stream.kReadBytesOrError,
      bufferOffset: stream.kArrayBufferOffset,
      eof: uv.UV_EOF,
    };
    const usable =
      typeof found.Pipe === 'function' &&
      typeof found.PipeConnectWrap === 'function' &&
      typeof found.WriteWrap === 'function' &&
      found.state instanceof Int32Array &&
      [found.socketType, found.readBytes, found.bufferOffset, found.eof].every(Number.isInteger);
    return usable ? (found as Bindings) : undefined;
  } catch {
    return undefined;
  }
}

/** With it, `process.binding` prints a deprecation warning, which would reach the agent. */
function pendingDeprecation(): boolean {
  const flag = '--pending-deprecation';
  return (
    process.execArgv.includes(flag) ||
    (process.env.NODE_OPTIONS ?? '').includes(flag) ||
    process.env.NODE_PENDING_DEPRECATION === '1'
  );
}

/** Node's name of the error with this libuv status (a negative errno). */
function errorCode(status: number): string | undefined {
  for (const [name, value] of Object.entries(constants.errno)) if (value === -status) return name;
  return undefined;
}

/** Connects to the Unix socket at `path`; `events` tells what happens, asynchronously. */
export function connectTo(path: string, events: ConnectionEvents): Connection {
  const found = bindings();
  return found === undefined ? netConnection(path, events) : handleConnection(found, path, events);
}

function handleConnection(b: Bindings, path: string, events: ConnectionEvents): Connection {
  const handle = new b.Pipe(b.socketType);
  let closed = false;
  // The requests in flight, held here as Node's own sockets hold theirs.
  const inFlight = new Set<object>();
  const fail = (status: number, what: string) => {
    if (closed) return;
    const code = errorCode(status);
    connection.destroy();
    events.error(code, `${what} ${code ?? status} ${path}`);
  };
  const connection: Connection = {
    write(text) {
      if (closed) return;
      const request = new b.WriteWrap();
      request.handle = handle;
      request.oncomplete = (status) => {
        inFlight.delete(request);
        if (status < 0) fail(status, 'write');
      };
      inFlight.add(request);
      const status = handle.writeUtf8String(request, text);
      if (status < 0) setImmediate(() => fail(status, 'write'));
    },
    release() {
      if (!closed) handle.unref();
    },
    destroy() {
      if (closed) return;
      closed = true;
      handle.readStop();
      handle.close();
    },
  };
  handle.onread = (buffer) => {
    if (closed) return;
    const read = b.state[b.readBytes] as number;
    if (read > 0 && buffer !== undefined)
      events.data(Buffer.from(buffer, b.state[b.bufferOffset] as number, read));
    else if (read === b.eof) {
      connection.destroy();
      events.end();
    } else if (read < 0) fail(read, 'read');
  };
  const request = new b.PipeConnectWrap();
  inFlight.add(request);
  request.oncomplete = (status) => {
    inFlight.delete(request);
    if (closed) return;
    if (status < 0) return fail(status, 'connect');
    const reading = handle.readStart();
    if (reading < 0) return fail(reading, 'read');
    events.connect();
  };
  const status = handle.connect(request, path);
  if (status < 0) setImmediate(() => fail(status, 'connect'));
  return connection;
}

function netConnection(path: string, events: ConnectionEvents): Connection {
  const socket = process.getBuiltinModule('node:net').createConnection(path);
  let closed = false;
  socket.on('connect', () => events.connect());
  socket.on('data', (chunk: Buffer) => events.data(chunk));
  socket.on('end', () => {
    if (!closed) events.end();
  });
  socket.on('close', () => {
    if (!closed) events.end();
  });
  socket.on('error', (error: NodeJS.ErrnoException) => {
    if (!closed) events.error(error.code, error.message);
  });
  return {
    write: (text) => socket.write(text),
    release: () => socket.unref(),
    destroy() {
      closed = true;
      socket.destroy();
    },
  };
}
