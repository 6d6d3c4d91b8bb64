import { randomUUID } from 'node:crypto';
import type { AgentIdentity } from '../hooks/agent-identity.js';
import type { ChatMessage } from '../hooks/messages.js';
import type { AgentLoop, RunLoop } from './agent-loop-types.js';
import type { ToolCallRecord } from './conversation-types.js';
import { DEFAULT_MAX_ITERATIONS } from './defaults.js';
import { observedSubagentRun } from './subagent-life.js';
import type { SubagentOptions, SubagentResult, ToolContext, ToolDefinition } from './types.js';

/** A subagent tool as its author writes it: `execute` is always given `runSubagent`. */
export interface SubagentToolDefinition {
  description?: string;
  parameters?: unknown;
  /** The kind of agent it starts (`agent.type`, observers' `child_role`), unless a run says. */
  type?: string;
  execute(
    args: Record<string, unknown>,
    context: Required<Pick<ToolContext, 'runSubagent'>> & Pick<ToolContext, 'signal'>,
  ): unknown | Promise<unknown>;
}

/**
 * A tool that starts a subagent in `runConversation` (docs/hosts.md, Subagents). The decision:
 * a subagent is declared, not discovered. Its tool says so up front, so the host can mark the
 * spawning call (`spawn: { covered: true }`) before any guard judges it, and only that tool is
 * given `runSubagent`, which runs a nested loop in the same turn: the same runtime, session,
 * turn id and `state`, with the subagent's identity on each of its `intercept_tool_call` and
 * `before_llm_call` and on its observer events. A blocked spawn never calls `execute`.
 */
export function subagentTool(definition: SubagentToolDefinition): ToolDefinition {
  const { type, execute } = definition;
  return {
    ...(definition.description === undefined ? {} : { description: definition.description }),
    ...(definition.parameters === undefined ? {} : { parameters: definition.parameters }),
    subagent: type === undefined ? {} : { type },
    execute(args, context) {
      const run = context?.runSubagent;
      // Fail closed: run anywhere else, its subagent's calls would reach no guard.
      if (run === undefined) {
        throw new Error(
          'a subagent tool ran without runSubagent: run it through runConversation, which gives it one (docs/hosts.md, Subagents)',
        );
      }
      return execute(args, {
        runSubagent: run,
        ...(context?.signal === undefined ? {} : { signal: context.signal }),
      });
    },
  };
}

/**
 * Runs a subagent's loop under `parent`'s turn: `subagent_start`, its loop (no
 * `transform_user_input`: the prompt is the model's words), then `subagent_stop` with how it
 * ended. The turn's signal stops it too.
 */
export async function runSubagent(
  parent: AgentLoop,
  declared: { type?: string },
  options: SubagentOptions,
  loop: RunLoop,
): Promise<SubagentResult> {
  checkOptions(options);
  const type = options.type ?? declared.type;
  const agent: AgentIdentity = Object.freeze({
    id: options.id ?? `subagent-${randomUUID()}`,
    ...(type === undefined ? {} : { type }),
    ...(parent.agent === undefined ? {} : { parent: parent.agent.id }),
  });
  const telemetry = parent.telemetry.forAgent(agent).identify({
    model: options.model.name,
    provider: options.model.provider,
  });
  const messages: ChatMessage[] = [{ role: 'user', content: options.prompt }];
  const toolCalls: ToolCallRecord[] = [];
  return observedSubagentRun(
    parent.telemetry,
    agent,
    options.goal ?? options.prompt,
    parent.signal,
    async () => {
      const end = await loop(
        {
          ...parent,
          agent,
          telemetry,
          systemPrompt: options.systemPrompt,
          model: options.model,
          tools: options.tools,
          maxIterations: options.maxIterations ?? DEFAULT_MAX_ITERATIONS,
        },
        messages,
        toolCalls,
      );
      return { ...end, messages, toolCalls, agent };
    },
    (result) => ({ cancelled: result.cancelled, summary: result.finalResponse }),
  );
}

/** What a tool gave `runSubagent`, checked before anything starts: a wrong one says which field. */
function checkOptions(options: SubagentOptions): void {
  const wrong = (field: string, expected: string) =>
    new TypeError(
      `runSubagent(options): ${field} must be ${expected} (docs/hosts.md, Subagents); no subagent was started`,
    );
  if (options === null || typeof options !== 'object') throw wrong('options', 'an object');
  if (typeof options.prompt !== 'string') throw wrong('prompt', 'a string');
  if (typeof options.systemPrompt !== 'string') throw wrong('systemPrompt', 'a string');
  if (typeof options.model?.complete !== 'function')
    throw wrong('model', 'a ModelClient (an object with complete())');
  if (options.tools === null || typeof options.tools !== 'object')
    throw wrong('tools', 'an object of tools');
  if (options.id !== undefined && (typeof options.id !== 'string' || options.id === ''))
    throw wrong('id', 'a non-empty string');
}
