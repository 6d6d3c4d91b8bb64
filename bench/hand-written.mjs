// The baseline the runtime's dispatch is held against: the smallest hand-written loop with the
// same semantics as one `interceptToolCall` chain run. Handlers arrive sorted; the handler event
// is a frozen object holding a deep frozen copy of the tool arguments; each result is classified
// (undefined / null / pass = pass, rewrite, block); metadata is merged; one trace entry
// `{ extension, action, durationMs }` per handler, timed with one performance.now() per handler;
// the first block ends the chain; a handler that throws is caught and its onError decides.
// Like the runtime, it returns at once when there is no handler (nobody would see the copy).

const EMPTY = Object.freeze({});
const MAX_DEPTH = 100;

function isPlainObject(value) {
  if (value === null || typeof value !== 'object') return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** Deep frozen copy of JSON-like data; other objects pass by reference, cycles are refused. */
function frozenCopy(value, depth) {
  if (value === null || typeof value !== 'object') return value;
  if (depth > MAX_DEPTH) throw new TypeError('payload too deep (or cyclic)');
  if (Array.isArray(value)) {
    const copy = new Array(value.length);
    for (let i = 0; i < value.length; i++) copy[i] = frozenCopy(value[i], depth + 1);
    return Object.freeze(copy);
  }
  if (!isPlainObject(value)) return value;
  const copy = {};
  for (const key of Object.keys(value)) copy[key] = frozenCopy(value[key], depth + 1);
  return Object.freeze(copy);
}

function makeEvent(call, toolArgs, turn, metadata) {
  return Object.freeze({
    toolName: call.toolName,
    toolArgs,
    toolCallId: call.toolCallId,
    taskId: call.taskId ?? turn.turnId,
    sessionId: turn.sessionId,
    turnId: turn.turnId,
    state: turn.state,
    metadata,
  });
}

/**
 * @param {ReadonlyArray<{ extension: string, fn: Function, onError: 'pass' | 'block' }>} handlers
 * @param {{ toolName: string, toolArgs: object, toolCallId?: string, taskId?: string }} call
 * @param {{ sessionId: string, turnId: string, state: object }} turn
 */
export function handWrittenDispatch(handlers, call, turn) {
  if (handlers.length === 0) {
    return { blocked: false, changed: false, value: call.toolArgs, metadata: EMPTY, trace: [] };
  }
  let value = frozenCopy(call.toolArgs, 0);
  let metadata = EMPTY;
  let changed = false;
  let event = makeEvent(call, value, turn, metadata);
  const trace = [];
  let start = performance.now();
  for (let i = 0; i < handlers.length; i++) {
    const handler = handlers[i];
    let result;
    let action;
    try {
      result = handler.fn(event);
      action = result == null ? 'pass' : result.action;
    } catch {
      action = handler.onError === 'block' ? 'block' : 'error';
      result = { action, value: `extension "${handler.extension}" failed` };
    }
    const end = performance.now();
    const durationMs = end - start;
    start = end;
    trace.push({ extension: handler.extension, action, durationMs });
    if (result?.metadata !== undefined) {
      metadata = Object.freeze({ ...metadata, ...result.metadata });
    }
    switch (action) {
      case 'pass':
      case 'error':
        break;
      case 'rewrite':
        value = frozenCopy(result.value, 0);
        changed = true;
        break;
      case 'block':
        return {
          blocked: true,
          message: result.value,
          blockedBy: handler.extension,
          changed,
          value: changed ? value : call.toolArgs,
          metadata,
          trace,
        };
      default:
        throw new TypeError(`unknown action ${action}`);
    }
    if (action === 'rewrite' || result?.metadata !== undefined) {
      event = makeEvent(call, value, turn, metadata);
    }
  }
  return { blocked: false, changed, value: changed ? value : call.toolArgs, metadata, trace };
}
