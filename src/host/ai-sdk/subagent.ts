import { randomUUID } from 'node:crypto';
import type { LanguageModelV3 } from '@ai-sdk/provider';
import { type FlexibleSchema, type ToolSet, wrapLanguageModel } from 'ai';
import type { AgentIdentity } from '../../hooks/agent-identity.js';
import type { Turn } from '../../runtime/turn.js';
import type { ApprovalRequest, Approver } from '../approval.js';
import { observedSubagentRun } from '../subagent-life.js';
import { scopedMiddleware } from './middleware.js';
import type { AgentScope, HermesTools, HermesToolsOptions } from './scope.js';

/** Where `subagentTool` keeps its declaration: a symbol survives a spread of the tool. */
const SUBAGENT = Symbol.for('hermes-extensions.ai-sdk.subagent-tool');

/** What a subagent tool's `run` is given: the nested agent's identity and its wrapper. */
export interface HermesSubagent {
  /** Its identity, on each of its `intercept_tool_call` and `before_llm_call`. */
  readonly agent: AgentIdentity;
  /** The spawning call's abort signal, when the SDK gave one: pass it to the nested call. */
  readonly signal: AbortSignal | undefined;
  /**
   * The nested `generateText` / `streamText`'s model and tools, under the parent's turn: its
   * state, its chains, this agent's identity. No `transform_user_input`: the nested prompt is the
   * model's words, not the user's.
   */
  withHermes<Tools extends ToolSet = Record<string, never>>(options: {
    model: LanguageModelV3;
    tools?: Tools;
    approve?: Approver;
  }): {
    model: LanguageModelV3;
    tools: Tools;
    pendingApprovals: ReadonlyMap<string, ApprovalRequest>;
  };
}

/** A subagent tool as its author writes it: the AI SDK tool's fields, with `run` for `execute`. */
export interface SubagentToolDefinition<Input = unknown, Output = unknown> {
  description?: string;
  /** As a tool's: `run` is given the input it parsed. */
  inputSchema: FlexibleSchema<Input>;
  /** The kind of agent it starts (`agent.type`, observers' `child_role`). */
  type?: string;
  /** What it is asked to do, as `subagent_start` tells it (`child_goal`). */
  goal?: (input: Input) => string;
  /** Runs the nested agent: call `subagent.withHermes` for its model and tools. */
  run(
    input: Input,
    subagent: HermesSubagent,
    options: { toolCallId: string; abortSignal?: AbortSignal },
  ): Output | PromiseLike<Output>;
}

interface Declared {
  type?: string;
  goal?: (input: never) => string;
  run: SubagentToolDefinition<never, unknown>['run'];
}

/**
 * An AI SDK tool whose `execute` runs a nested `generateText` / `streamText` under the parent's
 * turn (docs/hosts.md, Subagents). The decision, as for `runConversation`: a subagent is
 * declared, so `withHermes`'s tools mark the spawning call `spawn: { covered: true }` before any
 * guard judges it, and only a call the chain let through reaches `run`. Outside `withHermes` its
 * `execute` refuses to run: nothing would judge the nested agent's calls.
 */
export function subagentTool<Input, Output>(
  definition: SubagentToolDefinition<Input, Output>,
): ToolSet[string] {
  const { run, type, goal, ...fields } = definition;
  return {
    ...fields,
    [SUBAGENT]: { run, ...(type === undefined ? {} : { type }), ...(goal ? { goal } : {}) },
    execute: () => {
      throw new Error(
        'a subagent tool ran outside withHermes: pass it in the tools of withHermes (or hermesTools), which runs its nested agent under the turn (docs/hosts.md, Subagents)',
      );
    },
  } as unknown as ToolSet[string];
}

/** The declaration `subagentTool` left on a tool, if any. */
export function subagentOf(tool: object): Declared | undefined {
  return (tool as { [SUBAGENT]?: Declared })[SUBAGENT];
}

type WrapTools = <T extends ToolSet>(
  turn: Turn,
  tools: T,
  options: HermesToolsOptions,
  scope: AgentScope,
) => HermesTools<T>;

/**
 * Runs a subagent tool's `run` once the chain let its call through: `subagent_start`, the nested
 * call (its model and tools wrapped for the subagent's scope), then `subagent_stop` with how it
 * ended. `wrapTools` is tools.ts's own, handed in so the files import no cycle.
 */
export async function runSubagent(
  turn: Turn,
  parent: AgentScope,
  declared: Declared,
  input: unknown,
  context: { toolCallId: string; abortSignal?: unknown },
  wrapTools: WrapTools,
): Promise<unknown> {
  const signal = context.abortSignal instanceof AbortSignal ? context.abortSignal : undefined;
  const agent: AgentIdentity = Object.freeze({
    id: `subagent-${randomUUID()}`,
    ...(declared.type === undefined ? {} : { type: declared.type }),
    ...(parent.agent === undefined ? {} : { parent: parent.agent.id }),
  });
  const scope: AgentScope = { agent, telemetry: parent.telemetry.forAgent(agent) };
  const handle: HermesSubagent = {
    agent,
    signal,
    withHermes(options) {
      const { tools, pendingApprovals } = wrapTools(
        turn,
        options.tools ?? ({} as never),
        options.approve === undefined ? {} : { approve: options.approve },
        scope,
      );
      const middleware = scopedMiddleware(turn, scope);
      return {
        model: wrapLanguageModel({ model: options.model, middleware }),
        tools,
        pendingApprovals,
      };
    },
  };
  return observedSubagentRun(
    parent.telemetry,
    agent,
    declared.goal?.(input as never),
    signal,
    async () =>
      declared.run(input as never, handle, {
        toolCallId: context.toolCallId,
        ...(signal === undefined ? {} : { abortSignal: signal }),
      }),
    (output: unknown) => ({ cancelled: signal?.aborted ?? false, summary: answerOf(output) }),
  );
}

/** The subagent's final answer: `run`'s string, or the `text` of the result it returned. */
function answerOf(output: unknown): string | undefined {
  if (typeof output === 'string') return output;
  if (output !== null && typeof output === 'object' && 'text' in output) {
    const { text } = output as { text: unknown };
    return typeof text === 'string' ? text : undefined;
  }
  return undefined;
}
