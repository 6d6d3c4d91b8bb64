import type { HookName } from '../../hooks/index.js';
import {
  hermesToolIn,
  hermesToolNames,
  hermesToolOut,
  hermesToolsHidden,
  hermesToolsKept,
} from '../hermes-agent-tools.js';

type Args = Record<string, unknown>;

/** The hosts whose tools the bridge names as extensions know them (`initialize {tool_dialect}`). */
export const TOOL_DIALECTS = ['hermes-agent'] as const;
export type ToolDialect = (typeof TOOL_DIALECTS)[number];

/**
 * A hook call's payload in the framework's tool names, and its answer's value back in the host's:
 * a host that says it sends the Hermes agent's calls (its plugin) gets what its shell hooks get
 * (hermes-agent-tools.ts), so a guard for `bash` or `write` holds under both. `cwd` is the
 * bridge's folder, where the host runs a shell call that names no `workdir`.
 */
export function inDialect(
  hook: HookName,
  input: Args,
  cwd: string,
): { input: Args; valueOut: (value: unknown) => unknown } {
  const same = (value: unknown) => value;
  if (hook === 'intercept_tool_call' || hook === 'transform_tool_result') {
    const name = String(input.toolName);
    const args = input.toolArgs as Args;
    const { toolName, toolArgs } = hermesToolIn(name, args, cwd);
    return {
      input: { ...input, toolName, toolArgs },
      // intercept_tool_call's value is the arguments the call runs with; a result stays as it is.
      valueOut:
        hook === 'intercept_tool_call'
          ? (value) => hermesToolOut(name, args, value as Args, cwd)
          : same,
    };
  }
  if (hook === 'before_llm_call' && Array.isArray(input.tools)) {
    const offered = input.tools as string[];
    return {
      input: { ...input, tools: hermesToolNames(offered) },
      valueOut: (value) => requestOut(value as Args, offered),
    };
  }
  return { input, valueOut: same };
}

/** before_llm_call's value with the tools it keeps and hides in Hermes' names. */
function requestOut(value: Args, offered: readonly string[]): Args {
  if (!Array.isArray(value.tools)) return value;
  const tools = hermesToolsKept(offered, value.tools as string[]);
  const restrictions = value.tool_restrictions;
  return {
    ...value,
    tools,
    ...(Array.isArray(restrictions)
      ? {
          tool_restrictions: restrictions.map((r: Args) => ({
            ...r,
            hidden: hermesToolsHidden(offered, r.hidden as string[]),
          })),
        }
      : {}),
  };
}

/** An observer event's tool call (`tool_name`, `args`) in the framework's names. */
export function eventInDialect(fields: Args, cwd: string): Args {
  if (typeof fields.tool_name !== 'string') return fields;
  const args = fields.args;
  const isArgs = args !== null && typeof args === 'object' && !Array.isArray(args);
  const { toolName, toolArgs } = hermesToolIn(fields.tool_name, isArgs ? (args as Args) : {}, cwd);
  return { ...fields, tool_name: toolName, ...(isArgs ? { args: toolArgs } : {}) };
}
