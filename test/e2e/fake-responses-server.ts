import { sendEvents, sendJson, serveOnLoopback } from './loopback.js';

/**
 * A tool call the scripted model makes, one per model request, in order: a shell call, a patch,
 * a search of Codex's deferred tools (how a model finds the subagent tools Codex does not offer
 * up front), or any function tool by name, in a namespace when Codex offers it in one.
 * `waitsFor` names a subagent (its marker): the model's next request is answered only once that
 * subagent has given its final answer, as a model that waits for its helper would — unless the
 * call was refused, since then no subagent runs.
 */
export type ScriptedCall =
  | { shell: string }
  | { patch: string }
  | { search: string }
  | { tool: string; namespace?: string; args: Record<string, unknown>; waitsFor?: string };

type Body = { input?: Array<Record<string, unknown>>; tools?: Array<{ name?: string }> };

export interface FakeResponses {
  /** `http://127.0.0.1:PORT/v1`, for a model provider's `base_url`. */
  baseUrl: string;
  /** Every request body the main agent sent to `/v1/responses`, in order. */
  requests: Body[];
  /** Every request body each subagent sent, by its marker, in order. */
  subagentRequests: Record<string, Body[]>;
}

/** How long a request held for a subagent waits at most, so a test fails rather than hangs. */
const HOLD_MS = 30_000;

/**
 * The OpenAI Responses API as far as Codex uses it, on loopback: each `POST /v1/responses` is
 * answered as a server-sent event stream (`response.created`, one `response.output_item.done`,
 * `response.completed`). The answer is the conversation's next scripted tool call — counted by
 * the outputs of its own calls already in the request's input — and then a closing assistant
 * message. A shell call is `exec_command { cmd }`, a patch a freeform `apply_patch` custom tool
 * call, as Codex offers them to a model it knows (`gpt-5.5`).
 *
 * `subagents` scripts each subagent by a marker in the task the main agent gives it: a request
 * whose messages (not its tool calls) carry the marker is that subagent's. Codex hands a subagent
 * its task as a message and may copy the parent's history into its input, so each conversation's
 * call ids carry its name and only its own outputs count.
 */
export async function startFakeResponses(
  script: ScriptedCall[],
  subagents: Record<string, ScriptedCall[]> = {},
): Promise<FakeResponses> {
  const requests: Body[] = [];
  const subagentRequests: Record<string, Body[]> = Object.fromEntries(
    Object.keys(subagents).map((marker) => [marker, []]),
  );
  // The subagents that gave their final answer, and the held requests waiting for each.
  const done = new Set<string>();
  const finished = new Map<string, Array<() => void>>();
  const finish = (marker: string) => {
    done.add(marker);
    for (const wake of finished.get(marker) ?? []) wake();
    finished.set(marker, []);
  };
  const waitFor = (marker: string) =>
    done.has(marker)
      ? Promise.resolve()
      : new Promise<void>((resolve) => {
          finished.set(marker, [...(finished.get(marker) ?? []), resolve]);
          setTimeout(resolve, HOLD_MS).unref();
        });

  const port = await serveOnLoopback(async (request, text, response) => {
    if (request.method !== 'POST' || !request.url?.endsWith('/responses'))
      return sendJson(response, 404, { error: { message: 'not here', type: 'not_found' } });
    const body: Body = JSON.parse(text);
    const input = body.input ?? [];
    const marker = Object.keys(subagents).find((mark) => inMessages(input, mark));
    const name = marker === undefined ? 'main' : `sub${Object.keys(subagents).indexOf(marker)}`;
    if (marker === undefined) requests.push(body);
    else subagentRequests[marker]?.push(body);
    const own = input.filter(
      (item) =>
        String(item.type).endsWith('_output') && String(item.call_id).startsWith(`${name}_`),
    );
    const steps = marker === undefined ? script : (subagents[marker] ?? []);
    // The main agent waits for a subagent it started (and that was not refused).
    const previous = own.length > 0 ? steps[own.length - 1] : undefined;
    const refused = /blocked by/.test(JSON.stringify(own.at(-1)?.output ?? ''));
    if (previous && 'waitsFor' in previous && previous.waitsFor && !refused)
      await waitFor(previous.waitsFor);
    const next = steps[own.length];
    if (next === undefined && marker !== undefined) finish(marker);
    const id = `resp_${name}_${own.length}`;
    const events = [
      { type: 'response.created', response: { id } },
      { type: 'response.output_item.done', item: outputItem(next, `${name}_${own.length}`) },
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
  return { baseUrl: `http://127.0.0.1:${port}/v1`, requests, subagentRequests };
}

/** Whether a message of the input (a subagent's task is one) carries `marker`. */
function inMessages(input: Array<Record<string, unknown>>, marker: string): boolean {
  return input.some(
    (item) =>
      (item.type === 'message' || item.type === 'agent_message') &&
      JSON.stringify(item.content).includes(marker),
  );
}

function outputItem(next: ScriptedCall | undefined, callId: string): Record<string, unknown> {
  if (next === undefined) {
    return {
      type: 'message',
      role: 'assistant',
      id: `msg_${callId}`,
      content: [{ type: 'output_text', text: `done after ${callId.split('_')[1]} tool calls` }],
    };
  }
  if ('shell' in next) {
    return {
      type: 'function_call',
      call_id: callId,
      name: 'exec_command',
      arguments: JSON.stringify({ cmd: next.shell }),
    };
  }
  if ('patch' in next) {
    return { type: 'custom_tool_call', call_id: callId, name: 'apply_patch', input: next.patch };
  }
  if ('search' in next) {
    return {
      type: 'tool_search_call',
      call_id: callId,
      execution: 'client',
      arguments: { query: next.search, limit: 8 },
    };
  }
  return {
    type: 'function_call',
    call_id: callId,
    name: next.tool,
    ...(next.namespace === undefined ? {} : { namespace: next.namespace }),
    arguments: JSON.stringify(next.args),
  };
}
