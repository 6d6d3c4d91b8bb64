import type { ServerResponse } from 'node:http';
import { sendJson, serveOnLoopback } from './loopback.js';

/** A tool call the scripted model makes, one per model request, in order. */
export interface ScriptedToolCall {
  name: string;
  args: Record<string, unknown>;
}

/** A chat message as the OpenAI Chat Completions API carries it. */
export interface ChatMessage {
  role: string;
  content?: unknown;
  tool_calls?: Array<{ id: string; function: { name: string; arguments: string } }>;
  tool_call_id?: string;
}

export interface ChatRequest {
  model?: string;
  messages: ChatMessage[];
  tools?: Array<{ type?: string; function?: { name?: string } }>;
  stream?: boolean;
}

export interface FakeChatCompletions {
  /** `http://127.0.0.1:PORT/v1`, for a provider's `base_url`. */
  baseUrl: string;
  /** Every body POSTed to `/v1/chat/completions`, in order. */
  requests: ChatRequest[];
}

/** What the scripted model answers once its tool calls are done. */
export const FINAL_TEXT = 'E2E-FINAL: the work is done';

/**
 * The OpenAI Chat Completions API on loopback, as an OpenAI-compatible provider serves it: each
 * `POST /v1/chat/completions` is answered with the conversation's next scripted tool call —
 * counted by the tool results already in the request's messages — and then with FINAL_TEXT. A
 * request that asks to stream gets server-sent chunks, one for the message and one for the
 * finish, then `[DONE]`; any other path (the probes an agent makes of a local server) is a 404.
 */
export async function startFakeChatCompletions(
  script: ScriptedToolCall[],
): Promise<FakeChatCompletions> {
  const requests: ChatRequest[] = [];
  const port = await serveOnLoopback((request, text, response) => {
    if (request.method !== 'POST' || !request.url?.endsWith('/chat/completions'))
      return sendJson(response, 404, { error: { message: 'not here', type: 'not_found' } });
    const body = JSON.parse(text) as ChatRequest;
    requests.push(body);
    const done = body.messages.filter((message) => message.role === 'tool').length;
    const next = script[done];
    const message =
      next === undefined
        ? { role: 'assistant', content: FINAL_TEXT }
        : {
            role: 'assistant',
            content: null,
            tool_calls: [
              {
                id: `call_${done}`,
                type: 'function',
                function: { name: next.name, arguments: JSON.stringify(next.args) },
              },
            ],
          };
    const finish = next === undefined ? 'stop' : 'tool_calls';
    if (body.stream) return stream(response, message, finish);
    sendJson(response, 200, {
      id: `chatcmpl_${done}`,
      object: 'chat.completion',
      created: 0,
      model: body.model ?? 'fake',
      choices: [{ index: 0, message, finish_reason: finish }],
      usage: USAGE,
    });
  });
  return { baseUrl: `http://127.0.0.1:${port}/v1`, requests };
}

const USAGE = { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 };

function stream(
  response: ServerResponse,
  message: { role: string; content: string | null; tool_calls?: Array<object> },
  finish: string,
): void {
  const delta = {
    ...message,
    ...(message.tool_calls && {
      tool_calls: message.tool_calls.map((call, index) => ({ index, ...call })),
    }),
  };
  const chunk = (choice: object, extra: object = {}) =>
    `data: ${JSON.stringify({ id: 'chatcmpl', object: 'chat.completion.chunk', created: 0, model: 'fake', choices: [choice], ...extra })}\n\n`;
  response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  response.end(
    chunk({ index: 0, delta, finish_reason: null }) +
      chunk({ index: 0, delta: {}, finish_reason: finish }, { usage: USAGE }) +
      'data: [DONE]\n\n',
  );
}

/** A message's text, whether its content is a string or a list of parts. */
export function messageText(message: ChatMessage | undefined): string {
  const content = message?.content;
  if (typeof content === 'string') return content;
  if (Array.isArray(content))
    return content.map((part) => (part as { text?: string }).text ?? '').join('');
  return '';
}

/** The names of the tools a request offers the model. */
export function toolNames(request: ChatRequest | undefined): string[] {
  return (request?.tools ?? []).map((tool) => tool.function?.name ?? '');
}
