import type { LanguageModelV3CallOptions } from '@ai-sdk/provider';

/**
 * The step's provider request with only the tools before_llm_call left it (`restrictTools`), the
 * way the SDK applies `activeTools`: with none left, the request has no tools and no tool choice;
 * a tool choice that names a hidden tool becomes `none`, so the model cannot be made to call it.
 */
export function offeredOnly(
  params: LanguageModelV3CallOptions,
  names: readonly string[] | undefined,
): LanguageModelV3CallOptions {
  const tools = params.tools;
  if (names === undefined || tools === undefined) return params;
  const offered = new Set(names);
  const kept = tools.filter((tool) => offered.has(tool.name));
  if (kept.length === tools.length) return params;
  if (kept.length === 0) {
    const { tools: _hidden, toolChoice: _choice, ...rest } = params;
    return rest;
  }
  const choice = params.toolChoice;
  return {
    ...params,
    tools: kept,
    ...(choice?.type === 'tool' && !offered.has(choice.toolName)
      ? { toolChoice: { type: 'none' as const } }
      : {}),
  };
}
