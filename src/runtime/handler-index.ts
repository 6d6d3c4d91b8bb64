import type { RegisteredHandler } from '../chain/handler.js';
import { HOOK_NAMES, type HookName } from '../hooks/index.js';

/** How many distinct tool names get a cached handler list before the cache starts over. */
const TOOL_CACHE_LIMIT = 1024;

/**
 * The handlers of each hook, ordered once when the runtime is built (never per call), and for
 * tool calls the sub-list that matches each tool name, cached, so a handler whose `tools` do not
 * match a call costs nothing on it.
 */
export class HandlerIndex {
  readonly #byHook: Record<HookName, readonly RegisteredHandler[]>;
  readonly #toolHandlersMatchAll: boolean;
  readonly #byTool = new Map<string, readonly RegisteredHandler[]>();

  constructor(ordered: readonly RegisteredHandler[]) {
    const byHook = {} as Record<HookName, RegisteredHandler[]>;
    for (const hook of HOOK_NAMES) byHook[hook] = [];
    for (const handler of ordered) byHook[handler.hook].push(handler);
    this.#byHook = byHook;
    this.#toolHandlersMatchAll = byHook.intercept_tool_call.every((h) => h.tools === undefined);
  }

  forHook(hook: HookName): readonly RegisteredHandler[] {
    return this.#byHook[hook];
  }

  forTool(toolName: string): readonly RegisteredHandler[] {
    if (this.#toolHandlersMatchAll) return this.#byHook.intercept_tool_call;
    let list = this.#byTool.get(toolName);
    if (list === undefined) {
      list = this.#byHook.intercept_tool_call.filter((h) => h.tools?.test(toolName) ?? true);
      if (this.#byTool.size >= TOOL_CACHE_LIMIT) this.#byTool.clear();
      this.#byTool.set(toolName, list);
    }
    return list;
  }

  has(hook: HookName): boolean {
    return this.#byHook[hook].length > 0;
  }
}
