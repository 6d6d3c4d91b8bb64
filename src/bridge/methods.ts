import { isObserverEvent, OBSERVER_EVENTS } from '../observe/events.js';
import { sanitize } from '../observe/sanitize.js';
import { packageVersion } from '../package-root.js';
import type { Runtime } from '../runtime/runtime.js';
import { RPC, RpcError } from './json-rpc.js';
import {
  arrayOfObjects,
  given,
  object,
  optionalNumber,
  optionalText,
  type Params,
  paramsObject,
  text,
} from './params.js';
import type { BridgeTurns } from './turns.js';
import { messagesFromWire, messagesToWire, outcomeToWire } from './wire.js';

interface Served {
  runtime: Runtime;
  turns: BridgeTurns;
}

type Method = (served: Served, params: Params) => unknown;

/**
 * The bridge's methods (the README's "Any language, over stdio"). Each checks its params before it
 * runs anything, so a wrong shape is -32602 naming the param; whatever else throws is -32603.
 */
const METHODS: Record<string, Method> = {
  initialize: ({ runtime }) => ({
    protocol: 'hermes-extensions/1',
    version: packageVersion(),
    project_root: runtime.projectRoot,
    hooks: Object.fromEntries(
      ['transform_user_input', 'before_llm_call', 'intercept_tool_call'].map((h) => [
        h,
        runtime.hasHook(h),
      ]),
    ),
    extensions: runtime.extensions.map((e) => ({
      name: e.name,
      status: e.status,
      source: e.source,
      version: e.version,
      hooks: e.hooks,
      load_ms: e.loadMs,
    })),
    diagnostics: runtime.diagnostics,
  }),

  'turn/start': ({ turns }, params) => turns.start(params),

  'turn/end': ({ turns }, params) => turns.end(params),

  transform_user_input: async ({ turns }, params) => {
    const { turn } = turns.get(params);
    const userMessage = text(params, 'user_message');
    const outcome = await turn.transformUserInput(userMessage);
    return outcomeToWire(outcome, outcome.value);
  },

  before_llm_call: async ({ turns }, params) => {
    const { turn } = turns.get(params);
    const request = {
      systemPrompt: text(params, 'system_prompt'),
      messages: messagesFromWire(arrayOfObjects(params, 'messages')),
      ...given('iteration', optionalNumber(params, 'iteration')),
      ...given('model', optionalText(params, 'model')),
    };
    const outcome = await turn.beforeLlmCall(request);
    return outcomeToWire(outcome, {
      system_prompt: outcome.value.systemPrompt,
      messages: messagesToWire(outcome.value.messages),
    });
  },

  intercept_tool_call: async ({ turns }, params) => {
    const { turn } = turns.get(params);
    const call = {
      toolName: text(params, 'tool_name'),
      toolArgs: object(params, 'tool_args'),
      ...given('toolCallId', optionalText(params, 'tool_call_id')),
      ...given('taskId', optionalText(params, 'task_id')),
    };
    const outcome = await turn.interceptToolCall(call);
    return outcomeToWire(outcome, outcome.value);
  },

  event: ({ runtime }, params) => {
    // Observer events only the host knows (API requests, its own tool runs), usually sent as
    // notifications; passed on sanitized, with the ids the host gives.
    const { event, ...fields } = params;
    if (!isObserverEvent(event)) {
      throw new RpcError(RPC.invalidParams, `event must be one of ${OBSERVER_EVENTS.join(', ')}`);
    }
    if (runtime.hasHook(event)) runtime.emit(event, sanitize(fields) as Params);
    return { delivered: runtime.hasHook(event) };
  },
};

export async function dispatch(served: Served, method: string, params: unknown): Promise<unknown> {
  const run = Object.hasOwn(METHODS, method) ? METHODS[method] : undefined;
  if (run === undefined) throw new RpcError(RPC.methodNotFound, `unknown method "${method}"`);
  return run(served, paramsObject(params));
}
