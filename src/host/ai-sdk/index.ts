/**
 * `hermes-extensions/ai-sdk`: the hooks in a Vercel AI SDK agent (`ai` v6, and v7 where
 * Node ≥ 22), inside `runtime.runTurn`:
 *
 *     await runtime.runTurn({ sessionId }, async (turn) => {
 *       const call = await withHermes(turn, { prompt, model, tools });
 *       if (call.blocked) return call.message;
 *       const { text } = await generateText({ ...call, stopWhen: stepCountIs(10) });
 *     });
 *
 * `prompt` goes through transform_user_input; the wrapped model runs before_llm_call before every
 * step of a multi-step `generateText`/`streamText` (a block answers with its message and the
 * provider is not called); each wrapped tool runs intercept_tool_call before `execute` (a block
 * keeps the tool from running and the model receives the blocked result; a rewrite runs it with
 * the new arguments). A `restrictTools` narrows the step's tools as `activeTools` would; an `ask`
 * becomes the tool's `needsApproval` (the SDK's tool approval), or goes to `approve` when given
 * (docs/hosts.md, Asking a person).
 */

import type { LanguageModelV3, LanguageModelV3Middleware } from '@ai-sdk/provider';
import { type ToolSet, wrapLanguageModel } from 'ai';
import type { Turn } from '../../runtime/turn.js';
import type { ApprovalRequest, Approver } from '../approval.js';
import type { ApprovalMemory } from '../approval-memory.js';
import { scopedMiddleware } from './middleware.js';
import { mainScope } from './scope.js';
import { type HermesToolsOptions, hermesTools } from './tools.js';

export type { HermesSubagent, SubagentToolDefinition } from './subagent.js';
export { subagentTool } from './subagent.js';
export type { HermesTools, HermesToolsOptions } from './tools.js';
export { hermesTools };

/** The before_llm_call middleware for `wrapLanguageModel`. */
export function hermesMiddleware(turn: Turn): LanguageModelV3Middleware {
  return scopedMiddleware(turn, mainScope(turn));
}

/** The tools with intercept_tool_call in front of each `execute` (and asks as `needsApproval`). */
export function wrapTools<T extends ToolSet>(
  turn: Turn,
  tools: T,
  options: HermesToolsOptions = {},
): T {
  return hermesTools(turn, tools, options).tools;
}

/**
 * What `withHermes` returns. Narrowed by `blocked`, as `ChainOutcome` is: when it is true,
 * `message` is a string (the turn's answer), so `if (call.blocked) return call.message;` returns
 * a string under strict TypeScript.
 */
export type HermesCall<Model, Tools> = {
  /** The prompt after transform_user_input. */
  prompt: string;
  model: Model;
  tools: Tools;
  /**
   * By tool call id, the asks behind the `tool-approval-request` parts of the result: what to
   * show the person (why, who asked, the arguments the call would run with).
   */
  pendingApprovals: ReadonlyMap<string, ApprovalRequest>;
} & (
  | {
      blocked: true;
      /** The block message: the turn's answer. */
      message: string;
    }
  | { blocked: false; message?: undefined }
);

/** Everything for one `generateText`/`streamText` call of a turn, from one call. */
export async function withHermes<Tools extends ToolSet = Record<string, never>>(
  turn: Turn,
  options: {
    prompt: string;
    model: LanguageModelV3;
    tools?: Tools;
    approve?: Approver;
    approvals?: ApprovalMemory;
  },
): Promise<HermesCall<LanguageModelV3, Tools>> {
  const input = await turn.transformUserInput(options.prompt);
  const { tools, pendingApprovals } = hermesTools(turn, options.tools ?? ({} as Tools), {
    ...(options.approve === undefined ? {} : { approve: options.approve }),
    ...(options.approvals === undefined ? {} : { approvals: options.approvals }),
  });
  const model = wrapLanguageModel({ model: options.model, middleware: hermesMiddleware(turn) });
  const call = { prompt: input.value, model, tools, pendingApprovals };
  return input.blocked
    ? { blocked: true, message: input.message, ...call }
    : { blocked: false, ...call };
}
