import type { McpSdk } from './sdk.js';

type Server = InstanceType<McpSdk['Server']>;
type Client = InstanceType<McpSdk['Client']>;
/** What either side's handlers are given along with a request (the SDK's RequestHandlerExtra). */
export type RequestExtra = Parameters<NonNullable<Server['fallbackRequestHandler']>>[1];
/** A request as it is relayed: its method and params, as the sender wrote them. */
export interface RelayedRequest {
  method: string;
  params?: { [key: string]: unknown } | undefined;
}
type Result = { [key: string]: unknown };

/**
 * How long the proxy waits for an answer it relays: a day, not the SDK's minute. The client keeps
 * its own time limit and, when it gives up, cancels through the proxy (the signal below); a tool
 * that runs for minutes must not be cut short by the proxy alone.
 */
const RELAY_TIMEOUT_MS = 24 * 60 * 60 * 1000;

/** One side of the relay: the client's connection (the proxy's Server) or the wrapped server's (its Client). */
type Peer = Server | Client;

/**
 * `request` sent on to `to`, as it came: its params and `_meta` kept, a cancellation of the
 * original cancelling the relayed one (`extra.signal`), and the progress `to` reports sent back
 * under the sender's own progress token (the SDK numbers the relayed request's token itself).
 * The answer is passed back unchecked beyond JSON-RPC (`ResultSchema` keeps unknown fields); an
 * error answer keeps its code, message and data.
 */
export async function relay(
  sdk: McpSdk,
  to: Peer,
  request: RelayedRequest,
  extra: RequestExtra,
): Promise<Result> {
  const meta = request.params?._meta as { progressToken?: unknown } | undefined;
  const token = meta?.progressToken;
  const progress =
    typeof token === 'string' || typeof token === 'number'
      ? {
          onprogress: (reported: Record<string, unknown>) => {
            extra
              .sendNotification({
                method: 'notifications/progress',
                params: { ...reported, progressToken: token },
              } as Parameters<RequestExtra['sendNotification']>[0])
              .catch(() => undefined);
          },
        }
      : {};
  try {
    return await to.request(
      {
        method: request.method,
        ...(request.params === undefined ? {} : { params: request.params }),
      },
      sdk.types.ResultSchema,
      { signal: extra.signal, timeout: RELAY_TIMEOUT_MS, ...progress },
    );
  } catch (error) {
    throw relayedError(sdk, error);
  }
}

/**
 * The error to answer with for one `to` answered: its code, message and data as they came. The
 * SDK puts `MCP error <code>: ` before the message it read; the proxy's own answer would put it
 * there again.
 */
function relayedError(sdk: McpSdk, error: unknown): unknown {
  if (!(error instanceof sdk.types.McpError)) return error;
  const message = error.message.replace(/^MCP error -?\d+: /, '');
  return rpcError(error.code, message, error.data);
}

/**
 * An error the SDK answers a request with as it is: `code`, `message` and `data`. (Its McpError
 * puts `MCP error <code>: ` before the message, which the client's SDK then puts there again.)
 */
export function rpcError(code: number, message: string, data?: unknown): Error {
  return Object.assign(new Error(message), { code, ...(data === undefined ? {} : { data }) });
}

/**
 * Everything that is not a tool call or the tool list, both ways, unchanged: the client's
 * requests and notifications to the wrapped server (resources, prompts, completion, logging
 * levels, roots changes, cancellation) through `forward`, and the wrapped server's to the client
 * (sampling, elicitation, roots, logging, list changes, progress: `relayFromWrapped`).
 * `intercept` answers the methods the proxy judges itself, and leaves the rest (undefined).
 */
export function relayToWrapped(
  server: Server,
  forward: (request: RelayedRequest, extra: RequestExtra) => Promise<Result>,
  notify: (notification: RelayedRequest) => Promise<void>,
  intercept: (request: RelayedRequest, extra: RequestExtra) => Promise<Result> | undefined,
): void {
  server.fallbackRequestHandler = (request, extra) =>
    intercept(request, extra) ?? forward(request, extra);
  server.fallbackNotificationHandler = notify;
}

/** The wrapped server's requests and notifications to the client, sent on unchanged. */
export function relayFromWrapped(sdk: McpSdk, client: Client, server: Server): void {
  client.fallbackRequestHandler = (request, extra) => relay(sdk, server, request, extra);
  client.fallbackNotificationHandler = (notification) =>
    server.notification(notification as Parameters<Server['notification']>[0]);
}
