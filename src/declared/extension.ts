import { defineExtension, type ExtensionDefinition } from '../extensions/define.js';
import type { HookName } from '../hooks/index.js';
import type { HandlerOptions, HandlerReturn } from '../hooks/types.js';
import { type Decision, NO_DECISION } from './answer.js';
import type { Declaration } from './schema.js';

/** How a declared extension decides one event: what its engine or service said. */
export type Decide = (hook: HookName, event: object) => Promise<Decision>;

const TOOL_HOOKS: ReadonlySet<HookName> = new Set(['intercept_tool_call', 'transform_tool_result']);

/**
 * A declaration as an ordinary extension: one handler per hook it names, registered with the
 * options `hermes.on` takes, so priority, `tools`, `when`, order by name, timeouts, fail mode and
 * `mode: shadow` work as for an extension in code. Validators by default: a policy decides on the
 * value the host will act on, after every rewrite.
 */
export function declaredExtension(
  name: string,
  declaration: Declaration,
  decide: Decide,
): ExtensionDefinition<unknown> {
  const hooks = declaration.hooks ?? ['intercept_tool_call'];
  const fallback = declaration.default ?? 'pass';
  return defineExtension({
    name,
    description: declaration.description ?? `declared ${declaration.kind} policy`,
    setup(hermes) {
      for (const hook of hooks) {
        const options: HandlerOptions = {
          phase: declaration.phase ?? 'validate',
          ...(declaration.priority === undefined ? {} : { priority: declaration.priority }),
          ...(declaration.timeout_ms === undefined ? {} : { timeoutMs: declaration.timeout_ms }),
          ...(declaration.on_error === undefined ? {} : { onError: declaration.on_error }),
          ...(declaration.before === undefined ? {} : { before: declaration.before }),
          ...(declaration.after === undefined ? {} : { after: declaration.after }),
          ...(declaration.when === undefined ? {} : { when: declaration.when as never }),
        };
        if (declaration.tools !== undefined) {
          if (!TOOL_HOOKS.has(hook)) {
            throw new Error(
              `extensions.${name}.tools: only intercept_tool_call and transform_tool_result are called per tool, not ${hook}`,
            );
          }
          (options as HandlerOptions<'intercept_tool_call'>).tools = declaration.tools;
        }
        hermes.on(
          hook,
          async (event: object): Promise<HandlerReturn<HookName>> => {
            const decision = await decide(hook, event);
            if (decision !== NO_DECISION) return decision;
            return fallback === 'block'
              ? {
                  action: 'block',
                  value: `${name}: no policy allowed this (${declaration.kind} policy, default: block)`,
                }
              : undefined;
          },
          options as HandlerOptions<typeof hook>,
        );
      }
    },
  }) as ExtensionDefinition<unknown>;
}
