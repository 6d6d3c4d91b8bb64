import type { Readable, Writable } from 'node:stream';
import { TurnTelemetry } from '../host/telemetry.js';
import type { Logger } from '../log/logger.js';
import { isObserverEvent, OBSERVER_EVENTS } from '../observe/events.js';
import { sanitize } from '../observe/sanitize.js';
import { packageVersion } from '../package-root.js';
import { TurnInProgressError } from '../runtime/errors.js';
import { loadRuntime } from '../runtime/load-runtime.js';
import type { Runtime } from '../runtime/runtime.js';
import type { Turn } from '../runtime/turn.js';
import { parseRequest, RPC, RpcError } from './json-rpc.js';
import { messagesFromWire, messagesToWire, outcomeToWire } from './wire.js';

export interface BridgeOptions {
  cwd: string;
  home?: string;
  input: Readable;
  output: Writable;
  logger: Logger;
}

interface OpenTurn {
  turn: Turn;
  finish: () => void;
  closed: Promise<unknown>;
  telemetry: TurnTelemetry;
}

/**
 * `hermes extensions serve --stdio`: JSON-RPC 2.0, one message per line, for hosts in other
 * languages (the Python agent above all). Requests are handled as they arrive, so calls of
 * different turns interleave and answers may come out of order (match them by id). A malformed
 * line gets an error and the server keeps serving; when the input closes, open turns are ended
 * (their state cleared) and the returned promise resolves.
 */
export async function serveBridge(options: BridgeOptions): Promise<void> {
  const runtime = loadRuntime({ cwd: options.cwd, home: options.home, logger: options.logger });
  runtime.catch(() => {}); // reported to every request; the host decides what to do
  const turns = new Map<string, OpenTurn>();
  const send = (message: unknown) => options.output.write(`${JSON.stringify(message)}\n`);
  const inFlight = new Set<Promise<void>>();

  const handle = async (line: string) => {
    const request = parseRequest(line);
    if (request instanceof RpcError) {
      send({ jsonrpc: '2.0', id: null, error: { code: request.code, message: request.message } });
      return;
    }
    const { id } = request;
    try {
      const result = await dispatch(await runtime, turns, request.method, request.params ?? {});
      if (id !== undefined) send({ jsonrpc: '2.0', id, result });
    } catch (error) {
      if (id === undefined) return;
      const code = error instanceof RpcError ? error.code : RPC.internalError;
      send({
        jsonrpc: '2.0',
        id,
        error: { code, message: (error as Error)?.message ?? String(error) },
      });
    }
  };

  // Lines split by hand rather than by readline: it is the hot path of every call.
  let pending = '';
  const take = (line: string) => {
    if (line.trim() === '') return;
    const work = handle(line).finally(() => inFlight.delete(work));
    inFlight.add(work);
  };
  options.input.setEncoding('utf8');
  options.input.on('data', (chunk: string) => {
    const lines = (pending + chunk).split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) take(line);
  });
  await new Promise<void>((resolve) => {
    options.input.once('end', resolve);
    options.input.once('close', resolve);
  });
  take(pending);
  await Promise.allSettled(inFlight);
  for (const open of turns.values()) open.finish();
  await Promise.allSettled([...turns.values()].map((open) => open.closed));
  // The host is gone: the runtime is closed, so extensions flush what they buffered.
  await runtime.then(
    (loaded) => loaded.close(),
    () => {},
  );
}

type Params = Record<string, unknown>;

async function dispatch(
  runtime: Runtime,
  turns: Map<string, OpenTurn>,
  method: string,
  raw: unknown,
) {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    throw new RpcError(RPC.invalidParams, 'params must be an object');
  }
  const params = raw as Params;
  switch (method) {
    case 'initialize':
      return {
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
      };
    case 'turn/start':
      return startTurn(runtime, turns, params);
    case 'turn/end': {
      const open = openTurn(turns, params);
      turns.delete(open.turn.turnId);
      open.finish();
      await open.closed;
      return { ended: true };
    }
    case 'transform_user_input': {
      const { turn, telemetry } = openTurn(turns, params);
      const outcome = await turn.transformUserInput(text(params, 'user_message'));
      telemetry.decision('transform_user_input', outcome, {});
      return outcomeToWire(outcome, outcome.value);
    }
    case 'before_llm_call': {
      const { turn, telemetry } = openTurn(turns, params);
      if (!Array.isArray(params.messages))
        throw new RpcError(RPC.invalidParams, 'messages must be an array');
      const outcome = await turn.beforeLlmCall({
        systemPrompt: text(params, 'system_prompt'),
        messages: messagesFromWire(params.messages as Params[]),
        ...(typeof params.iteration === 'number' ? { iteration: params.iteration } : {}),
        ...(typeof params.model === 'string' ? { model: params.model } : {}),
      });
      telemetry.decision('before_llm_call', outcome, {});
      return outcomeToWire(outcome, {
        system_prompt: outcome.value.systemPrompt,
        messages: messagesToWire(outcome.value.messages),
      });
    }
    case 'intercept_tool_call': {
      const { turn, telemetry } = openTurn(turns, params);
      const args = params.tool_args;
      if (args === null || typeof args !== 'object' || Array.isArray(args)) {
        throw new RpcError(RPC.invalidParams, 'tool_args must be an object');
      }
      const outcome = await turn.interceptToolCall({
        toolName: text(params, 'tool_name'),
        toolArgs: args as Params,
        ...(typeof params.tool_call_id === 'string' ? { toolCallId: params.tool_call_id } : {}),
        ...(typeof params.task_id === 'string' ? { taskId: params.task_id } : {}),
      });
      const toolCall = {
        id: String(params.tool_call_id ?? ''),
        name: String(params.tool_name),
        arguments: {},
      };
      telemetry.decision('intercept_tool_call', outcome, { toolCall });
      return outcomeToWire(outcome, outcome.value);
    }
    case 'event': {
      // Observer events only the host knows (API requests, its own tool runs), usually sent as
      // notifications; passed on sanitized, with the ids the host gives.
      const { event, ...fields } = params;
      if (!isObserverEvent(event)) {
        throw new RpcError(RPC.invalidParams, `event must be one of ${OBSERVER_EVENTS.join(', ')}`);
      }
      if (runtime.hasHook(event)) runtime.emit(event, sanitize(fields) as Params);
      return { delivered: runtime.hasHook(event) };
    }
    default:
      throw new RpcError(RPC.methodNotFound, `unknown method "${method}"`);
  }
}

async function startTurn(runtime: Runtime, turns: Map<string, OpenTurn>, params: Params) {
  const sessionId = text(params, 'session_id');
  let finish: () => void = () => {};
  let opened: Turn | undefined;
  const closed = runtime.runTurn(
    {
      sessionId,
      ...(typeof params.platform === 'string' ? { platform: params.platform } : {}),
      ...(typeof params.turn_id === 'string' ? { turnId: params.turn_id } : {}),
    },
    (turn) => {
      opened = turn;
      return new Promise<void>((resolve) => {
        finish = resolve;
      });
    },
  );
  if (opened === undefined) {
    // runTurn refused before starting the turn.
    const error = await closed.then(
      () => undefined,
      (reason: unknown) => reason,
    );
    if (error instanceof TurnInProgressError) throw new RpcError(RPC.turnInProgress, error.message);
    throw new RpcError(RPC.invalidParams, (error as Error)?.message ?? 'cannot start the turn');
  }
  const telemetry = new TurnTelemetry(runtime, {
    session_id: sessionId,
    turn_id: opened.turnId,
    task_id: opened.turnId,
    platform: opened.platform,
  });
  turns.set(opened.turnId, { turn: opened, finish, closed, telemetry });
  return { turn_id: opened.turnId };
}

function openTurn(turns: Map<string, OpenTurn>, params: Params): OpenTurn {
  const id = text(params, 'turn_id');
  const open = turns.get(id);
  if (open === undefined)
    throw new RpcError(RPC.unknownTurn, `no open turn "${id}" (start one with turn/start)`);
  return open;
}

function text(params: Params, key: string): string {
  const value = params[key];
  if (typeof value !== 'string') throw new RpcError(RPC.invalidParams, `${key} must be a string`);
  return value;
}
