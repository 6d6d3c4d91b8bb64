type Json = Record<string, unknown>;

/** Events whose value is a list of `{matcher, hooks: [handler…]}` groups. */
const GROUP_EVENTS = ['pretooluse', 'posttooluse'];
/** Events whose value is a flat list of handlers. */
const FLAT_EVENTS = ['preinvocation', 'postinvocation', 'stop', 'sessionstart'];

const INT32 = 2 ** 31;

/**
 * What in an Antigravity `hooks.json` would make Antigravity drop the whole file, silently (the
 * load-time errors skillsaw's rule `antigravity-hooks-valid` lists, measured on agy 1.1.25), or
 * undefined when there is nothing: the root not an object of named hooks, a top-level `enabled`,
 * a hook not an object or its `enabled` not a boolean, an event not a list, a group or handler
 * not an object, a `matcher` not a string, a group's `hooks` not a list, a handler `type` other
 * than `command` or `prompt`, a command handler with `prompt` or `model` (or a prompt handler with
 * `command`), a `timeout` that is not a whole 32-bit number. Event names Antigravity does not know
 * are ignored by it, not fatal: they pass.
 */
export function antigravityHooksProblem(file: unknown): string | undefined {
  if (!isObject(file)) return 'the file is not a JSON object of named hooks';
  if ('enabled' in file) return 'a top-level "enabled" (every top-level key is a hook name)';
  for (const [name, hook] of Object.entries(file)) {
    const at = `hook ${JSON.stringify(name)}`;
    if (!isObject(hook)) return `${at} is not an object`;
    for (const [event, value] of Object.entries(hook)) {
      if (event === 'enabled') {
        if (typeof value !== 'boolean') return `${at}: "enabled" is not a boolean`;
        continue;
      }
      const where = `${at}, ${event}`;
      if (!Array.isArray(value)) return `${where} is not a list`;
      const flat = FLAT_EVENTS.includes(event.toLowerCase());
      const grouped = GROUP_EVENTS.includes(event.toLowerCase());
      for (const item of value) {
        if (!isObject(item)) return `${where}: an entry is not an object`;
        if (grouped || (!flat && 'hooks' in item)) {
          if ('matcher' in item && typeof item.matcher !== 'string')
            return `${where}: a matcher is not a string`;
          if ('hooks' in item && !Array.isArray(item.hooks))
            return `${where}: a group's "hooks" is not a list`;
          for (const handler of Array.isArray(item.hooks) ? item.hooks : []) {
            const problem = handlerProblem(handler);
            if (problem !== undefined) return `${where}: ${problem}`;
          }
        } else {
          const problem = handlerProblem(item);
          if (problem !== undefined) return `${where}: ${problem}`;
        }
      }
    }
  }
  return undefined;
}

function handlerProblem(handler: unknown): string | undefined {
  if (!isObject(handler)) return 'a handler is not an object';
  const type = handler.type ?? 'command';
  if (type !== 'command' && type !== 'prompt')
    return `a handler's type ${JSON.stringify(type)} is neither "command" nor "prompt"`;
  if (type === 'command' && ('prompt' in handler || 'model' in handler))
    return 'a command handler carries "prompt" or "model"';
  if (type === 'prompt' && 'command' in handler) return 'a prompt handler carries "command"';
  if ('timeout' in handler) {
    const t = handler.timeout;
    if (typeof t !== 'number' || !Number.isInteger(t) || t < -INT32 || t >= INT32)
      return `a timeout of ${JSON.stringify(t)} is not a whole 32-bit number of seconds`;
  }
  return undefined;
}

function isObject(value: unknown): value is Json {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
