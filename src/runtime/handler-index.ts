import type { RegisteredHandler } from '../chain/handler.js';
import { HOOK_NAMES, type HookName } from '../hooks/index.js';
import type { ToolHookName } from '../hooks/types.js';

/** How many distinct tool names get a cached handler list before the cache starts over. */
const TOOL_CACHE_LIMIT = 1024;

/**
 * The handlers of each hook, ordered once when the runtime is built (never per call), and for
 * the hooks that run per tool call the sub-list that matches each tool name, cached, so a
 * handler whose `tools` do not match a call costs nothing on it.
 */
export class HandlerIndex {
  readonly #byHook: Record<HookName, readonly RegisteredHandler[]>;
  readonly #toolCalls: ByTool;
  readonly #toolResults: ByTool;

  constructor(ordered: readonly RegisteredHandler[]) {
    const byHook = {} as Record<HookName, RegisteredHandler[]>;
    for (const hook of HOOK_NAMES) byHook[hook] = [];
    for (const handler of ordered) byHook[handler.hook].push(handler);
    this.#byHook = byHook;
    this.#toolCalls = new ByTool(byHook.intercept_tool_call);
    this.#toolResults = new ByTool(byHook.transform_tool_result);
  }

  forHook(hook: HookName): readonly RegisteredHandler[] {
    return this.#byHook[hook];
  }

  /** The `intercept_tool_call` handlers for calls of `toolName`. */
  forTool(toolName: string): readonly RegisteredHandler[] {
    return this.#toolCalls.handlers(toolName);
  }

  /** The handlers of a per-tool hook for `toolName`. */
  forToolOf(hook: ToolHookName, toolName: string): readonly RegisteredHandler[] {
    return (hook === 'intercept_tool_call' ? this.#toolCalls : this.#toolResults).handlers(
      toolName,
    );
  }

  has(hook: HookName): boolean {
    return this.#byHook[hook].length > 0;
  }
}

/** One per-tool hook's handlers, and the sub-list of each tool name, cached. */
class ByTool {
  readonly #all: readonly RegisteredHandler[];
  readonly #matchAll: boolean;
  readonly #byTool = new Map<string, readonly RegisteredHandler[]>();

  constructor(all: readonly RegisteredHandler[]) {
    this.#all = all;
    this.#matchAll = all.every((h) => h.tools === undefined);
  }

  handlers(toolName: string): readonly RegisteredHandler[] {
    if (this.#matchAll) return this.#all;
    let list = this.#byTool.get(toolName);
    if (list === undefined) {
      list = this.#all.filter((h) => h.tools?.test(toolName) ?? true);
      if (this.#byTool.size >= TOOL_CACHE_LIMIT) this.#byTool.clear();
      this.#byTool.set(toolName, list);
    }
    return list;
  }
}
