import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

const open = new Set<Server>();

/**
 * An HTTP server on 127.0.0.1, on a free port, that hands `answer` each request with its whole
 * body. Returns the port; `closeLoopbackServers` closes every such server (after each test).
 */
export async function serveOnLoopback(
  answer: (request: IncomingMessage, body: string, response: ServerResponse) => void,
): Promise<number> {
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => answer(request, Buffer.concat(chunks).toString('utf8'), response));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  open.add(server);
  return (server.address() as AddressInfo).port;
}

export async function closeLoopbackServers(): Promise<void> {
  const closing = [...open].map(
    (server) => new Promise<void>((resolve) => server.close(() => resolve())),
  );
  open.clear();
  await Promise.all(closing);
}

/** Server-sent events, each named by its `type`. */
export function sendEvents(response: ServerResponse, events: Array<{ type: string }>): void {
  response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  response.end(
    events.map((event) => `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`).join(''),
  );
}

export function sendJson(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify(body));
}
