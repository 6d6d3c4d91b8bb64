import { sendEvents, sendJson, serveOnLoopback } from './loopback.js';

/** A tool call the scripted model makes, one per model request, in order. */
export interface ScriptedToolUse {
  name: string;
  input: Record<string, unknown>;
}

type Request = { messages?: Array<{ role: string; content: unknown }> };

export interface FakeMessages {
  /** `http://127.0.0.1:PORT`, for `ANTHROPIC_BASE_URL`. */
  baseUrl: string;
  /** Every `/v1/messages` request body that offered tools (the agent's own turns), in order. */
  requests: Request[];
  /** The same, of the subagent's conversation (see `subagent`). */
  subagentRequests: Request[];
}

/**
 * A subagent's own script: its conversation is the one whose first message contains `marker`
 * (put it in the prompt the main agent's script gives the subagent).
 */
export interface ScriptedSubagent {
  marker: string;
  script: ScriptedToolUse[];
}

type Block = { type: 'text'; text: string } | ({ type: 'tool_use'; id: string } & ScriptedToolUse);

/**
 * Anthropic's Messages API as far as Claude Code uses it, on loopback: `POST /v1/messages`
 * answered as a server-sent event stream (or as JSON when not streamed). A request that offers
 * tools gets the next scripted `tool_use` — counted by the `tool_result` blocks already in its
 * messages — and then a closing text; one without tools (a side request) gets a short text.
 */
export async function startFakeMessages(
  script: ScriptedToolUse[],
  subagent?: ScriptedSubagent,
): Promise<FakeMessages> {
  const requests: FakeMessages['requests'] = [];
  const subagentRequests: FakeMessages['subagentRequests'] = [];
  let count = 0;
  const port = await serveOnLoopback((request, text, response) => {
    const path = request.url?.split('?')[0] ?? '';
    if (request.method === 'POST' && path.endsWith('/v1/messages/count_tokens'))
      return sendJson(response, 200, { input_tokens: 100 });
    if (request.method !== 'POST' || !path.endsWith('/v1/messages'))
      return sendJson(response, 404, {
        type: 'error',
        error: { type: 'not_found_error', message: 'not here' },
      });
    const body = JSON.parse(text);
    const id = `msg_${++count}`;
    const model = String(body.model ?? 'claude');
    let content: Block[];
    let stop: 'tool_use' | 'end_turn' = 'end_turn';
    if (!Array.isArray(body.tools) || body.tools.length === 0) {
      content = [{ type: 'text', text: 'ok' }];
    } else {
      const first = JSON.stringify(body.messages?.[0]?.content ?? '');
      const inSubagent = subagent !== undefined && first.includes(subagent.marker);
      (inSubagent ? subagentRequests : requests).push(body);
      const done = (body.messages ?? [])
        .flatMap((m: { content: unknown }) => (Array.isArray(m.content) ? m.content : []))
        .filter((block: { type?: string }) => block.type === 'tool_result').length;
      const next = (inSubagent ? subagent.script : script)[done];
      const idPrefix = inSubagent ? 'toolu_sub_' : 'toolu_';
      if (next === undefined) content = [{ type: 'text', text: `done after ${done} tool calls` }];
      else {
        content = [{ type: 'tool_use', id: `${idPrefix}${done}`, ...next }];
        stop = 'tool_use';
      }
    }
    const usage = {
      input_tokens: 10,
      output_tokens: 5,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
    };
    if (!body.stream) {
      return sendJson(response, 200, {
        id,
        type: 'message',
        role: 'assistant',
        model,
        content,
        stop_reason: stop,
        stop_sequence: null,
        usage,
      });
    }
    const events: Array<{ type: string } & Record<string, unknown>> = [
      {
        type: 'message_start',
        message: {
          id,
          type: 'message',
          role: 'assistant',
          model,
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage,
        },
      },
    ];
    content.forEach((block, index) => {
      if (block.type === 'text') {
        events.push({
          type: 'content_block_start',
          index,
          content_block: { type: 'text', text: '' },
        });
        events.push({
          type: 'content_block_delta',
          index,
          delta: { type: 'text_delta', text: block.text },
        });
      } else {
        const { input, ...start } = block;
        events.push({
          type: 'content_block_start',
          index,
          content_block: { ...start, input: {} },
        });
        events.push({
          type: 'content_block_delta',
          index,
          delta: { type: 'input_json_delta', partial_json: JSON.stringify(input) },
        });
      }
      events.push({ type: 'content_block_stop', index });
    });
    events.push(
      {
        type: 'message_delta',
        delta: { stop_reason: stop, stop_sequence: null },
        usage: { output_tokens: 5 },
      },
      { type: 'message_stop' },
    );
    sendEvents(response, events);
  });
  return { baseUrl: `http://127.0.0.1:${port}`, requests, subagentRequests };
}
