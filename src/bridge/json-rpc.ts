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

export interface RpcRequest {
  jsonrpc: '2.0';
  id?: string | number | null;
  method: string;
  params?: unknown;
}

/** A line as a request, or the error to answer it with. */
export function parseRequest(line: string): RpcRequest | RpcError {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (error) {
    return new RpcError(RPC.parseError, `not JSON: ${(error as Error).message}`);
  }
  const request = value as Partial<RpcRequest>;
  if (
    value === null ||
    typeof value !== 'object' ||
    Array.isArray(value) ||
    request.jsonrpc !== '2.0' ||
    typeof request.method !== 'string'
  ) {
    return new RpcError(
      RPC.invalidRequest,
      'expected {"jsonrpc":"2.0","method":…,"id":…,"params":…}',
    );
  }
  return request as RpcRequest;
}
