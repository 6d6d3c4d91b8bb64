/** JSON-RPC 2.0 error codes the bridge answers with. */
export const RPC = {
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internalError: -32603,
  unknownTurn: -32001,
  turnInProgress: -32002,
} as const;

export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

/** What JSON-RPC 2.0 allows as a request id; only such an id is ever echoed back. */
export type RpcId = string | number | null;

export function isRpcId(value: unknown): value is RpcId {
  return value === null || typeof value === 'string' || typeof value === 'number';
}

export interface RpcRequest {
  jsonrpc: '2.0';
  /** Absent for a notification, which gets no answer. */
  id?: RpcId;
  method: string;
  params?: unknown;
}

/** A line that is no request: the error to answer it with, under the id it gave if that is valid. */
export interface RejectedLine {
  rejected: RpcError;
  id: RpcId;
}

/** A line as JSON, or the -32700 to answer it with. */
export function parseLine(line: string): { value: unknown } | RejectedLine {
  try {
    return { value: JSON.parse(line) };
  } catch (error) {
    return reject(RPC.parseError, `not JSON: ${(error as Error).message}`);
  }
}

/** A parsed value (a line, or one element of a batch) as a request, or why it is none. */
export function checkRequest(value: unknown): RpcRequest | RejectedLine {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return reject(RPC.invalidRequest, `expected ${SHAPE}`);
  }
  const request = value as Partial<RpcRequest> & { id?: unknown };
  if ('id' in request && !isRpcId(request.id)) {
    return reject(RPC.invalidRequest, 'id must be a string, a number or null');
  }
  if (request.jsonrpc !== '2.0' || typeof request.method !== 'string') {
    // The id is valid, so the host can match this answer to its request.
    return reject(RPC.invalidRequest, `expected ${SHAPE}`, request.id ?? null);
  }
  return request as RpcRequest;
}

const SHAPE = '{"jsonrpc":"2.0","method":…,"id":…,"params":…}';

export function reject(code: number, message: string, id: RpcId = null): RejectedLine {
  return { rejected: new RpcError(code, message), id };
}

export function isRejected(parsed: object): parsed is RejectedLine {
  return 'rejected' in parsed;
}

/**
 * The message of whatever was thrown, read inside a guard: a thrown value whose `message` getter
 * throws must still turn into an answer, not into an unhandled rejection.
 */
export function errorMessage(error: unknown): string {
  try {
    const message = error instanceof Error ? error.message : String(error);
    return typeof message === 'string' ? message : String(message);
  } catch {
    return 'internal error (its message could not be read)';
  }
}

/** The code to answer a thrown value with: its own for an RpcError, -32603 for anything else. */
export function errorCode(error: unknown): number {
  try {
    return error instanceof RpcError ? error.code : RPC.internalError;
  } catch {
    return RPC.internalError; // a Proxy whose prototype cannot be read
  }
}
