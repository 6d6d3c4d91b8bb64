import { shown } from './answer.js';

/** How a declaration reaches its decision service: resolved once, when the runtime is built. */
export interface Remote {
  url: string;
  headers: Record<string, string>;
  retries: number;
  timeoutMs: number;
}

/**
 * HTTPS, or plain HTTP to this machine only: a decision service on the network answers for every
 * tool call and is sent every argument (a wrapped MCP server, every call and its result), so
 * nobody between may read or change that. Another URL needs the user's own leave: by default
 * `allow_insecure_url` in their own config; `allowedBy` says how where the leave is another.
 */
export function urlProblem(
  url: string,
  allowInsecure: boolean,
  allowedBy = 'set allow_insecure_url: true in your own config ($HERMES_HOME/config.yaml)',
): string | undefined {
  const parsed = new URL(url);
  if (parsed.protocol === 'https:' || allowInsecure || isLoopback(parsed.hostname))
    return undefined;
  return `${url} is neither HTTPS nor on this machine (localhost, 127.0.0.1, ::1); use HTTPS, or ${allowedBy}`;
}

/** Whether `host` (a URL's hostname: IPv6 in brackets) names this machine. */
export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '[::1]' || /^127(?:\.\d{1,3}){3}$/.test(host);
}

/**
 * The headers `headers_from_env` names, read from the environment; a variable that is not set is
 * a load error (a request without its credentials would be refused, or worse, answered).
 */
export function headersFromEnv(
  names: Readonly<Record<string, string>> | undefined,
  env: NodeJS.ProcessEnv,
): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [header, variable] of Object.entries(names ?? {})) {
    const value = env[variable];
    if (value === undefined || value === '') {
      throw new Error(`headers_from_env.${header}: environment variable ${variable} is not set`);
    }
    headers[header] = value;
  }
  return headers;
}

/**
 * The most an answer may hold (1 MiB). A decision is a small JSON document; a service that sends
 * more (a fault, or a server that streams without end) would otherwise be read whole into the
 * memory of the process every hook of the user's runs in.
 */
export const MAX_ANSWER_BYTES = 1024 * 1024;

/**
 * POSTs JSON and reads a JSON answer: each attempt bounded by the declaration's timeout, a network
 * failure (or an answer broken off) or a 5xx tried again `retries` times, anything else (a 4xx,
 * an answer that is not JSON, one over `MAX_ANSWER_BYTES`) thrown at once. Redirects are refused:
 * one could lead the request, headers and all, elsewhere.
 */
export async function postJson(remote: Remote, body: unknown, who: string): Promise<unknown> {
  const payload = JSON.stringify(body);
  let failure: Error | undefined;
  for (let attempt = 0; attempt <= remote.retries; attempt++) {
    let response: Response;
    try {
      response = await fetch(remote.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...remote.headers },
        body: payload,
        redirect: 'error',
        signal: AbortSignal.timeout(remote.timeoutMs),
      });
    } catch (error) {
      failure = new Error(`${who}: ${remote.url} could not be reached: ${reasonOf(error)}`);
      continue;
    }
    let text: string | undefined;
    try {
      text = await boundedText(response, MAX_ANSWER_BYTES);
    } catch (error) {
      failure = new Error(`${who}: ${remote.url} broke off its answer: ${reasonOf(error)}`);
      continue;
    }
    if (text === undefined) {
      throw new Error(
        `${who}: ${remote.url} answered more than ${MAX_ANSWER_BYTES} bytes (HTTP ${response.status}); a decision is a small JSON document, so the rest was not read`,
      );
    }
    if (response.status >= 500) {
      failure = new Error(`${who}: ${remote.url} answered HTTP ${response.status}`);
      continue;
    }
    if (!response.ok) {
      throw new Error(`${who}: ${remote.url} answered HTTP ${response.status} ${shown(text)}`);
    }
    try {
      return JSON.parse(text) as unknown;
    } catch {
      throw new Error(`${who}: ${remote.url} answered ${shown(text)}, which is not JSON`);
    }
  }
  throw failure ?? new Error(`${who}: ${remote.url} was not asked`);
}

/**
 * The body as text, read as it comes and given up (the connection cancelled) past `limit` bytes:
 * undefined then. A `content-length` over the limit is given up before anything is read.
 */
async function boundedText(response: Response, limit: number): Promise<string | undefined> {
  const body = response.body;
  if (body === null) return '';
  const reader = body.getReader();
  const stop = async () => {
    await reader.cancel().catch(() => undefined);
    return undefined;
  };
  if (Number(response.headers.get('content-length') ?? 0) > limit) return stop();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) return stop();
    chunks.push(value);
  }
  // As `response.text()` decodes: UTF-8, a byte-order mark dropped.
  return new TextDecoder().decode(Buffer.concat(chunks));
}

function reasonOf(error: unknown): string {
  const cause = (error as { cause?: { message?: unknown } }).cause?.message;
  const message = error instanceof Error ? error.message : String(error);
  return typeof cause === 'string' ? `${message} (${cause})` : message;
}
