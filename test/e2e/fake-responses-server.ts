import { sendEvents, sendJson, serveOnLoopback } from './loopback.js';

/** A tool call the scripted model makes, one per model request, in order. */
export type ScriptedCall = { shell: string } | { patch: string };

export interface FakeResponses {
  /** `http://127.0.0.1:PORT/v1`, for a model provider's `base_url`. */
  baseUrl: string;
  /** Every request body Codex sent to `/v1/responses`, in order. */
  requests: Array<{ input?: Array<Record<string, unknown>>; tools?: Array<{ name?: string }> }>;
}

/**
 * The OpenAI Responses API as far as Codex uses it, on loopback: each `POST /v1/responses` is
 * answered as a server-sent event stream (`response.created`, one `response.output_item.done`,
 * `response.completed`). The answer is the next scripted tool call — counted by the tool outputs
 * already in the request's input — and then a closing assistant message. A shell call is
 * `exec_command { cmd }`, a patch a freeform `apply_patch` custom tool call, as Codex offers them
 * to a model it knows (`gpt-5.5`).
 */
export async function startFakeResponses(script: ScriptedCall[]): Promise<FakeResponses> {
  const requests: FakeResponses['requests'] = [];
  const port = await serveOnLoopback((request, text, response) => {
    if (request.method !== 'POST' || !request.url?.endsWith('/responses'))
      return sendJson(response, 404, { error: { message: 'not here', type: 'not_found' } });
    const body = JSON.parse(text);
    requests.push(body);
    const done = (body.input ?? []).filter((item: { type?: string }) =>
      ['function_call_output', 'custom_tool_call_output'].includes(String(item.type)),
    ).length;
    const id = `resp_${requests.length}`;
    const next = script[done];
    const item =
      next === undefined
        ? {
            type: 'message',
            role: 'assistant',
            id: `msg_${requests.length}`,
            content: [{ type: 'output_text', text: `done after ${done} tool calls` }],
          }
        : 'shell' in next
          ? {
              type: 'function_call',
              call_id: `call_${done}`,
              name: 'exec_command',
              arguments: JSON.stringify({ cmd: next.shell }),
            }
          : {
              type: 'custom_tool_call',
              call_id: `call_${done}`,
              name: 'apply_patch',
              input: next.patch,
            };
    const events = [
      { type: 'response.created', response: { id } },
      { type: 'response.output_item.done', item },
      {
        type: 'response.completed',
        response: {
          id,
          usage: {
            input_tokens: 10,
            input_tokens_details: null,
            output_tokens: 5,
            output_tokens_details: null,
            total_tokens: 15,
          },
        },
      },
    ];
    sendEvents(response, events);
  });
  return { baseUrl: `http://127.0.0.1:${port}/v1`, requests };
}
