import type { Turn } from '../../runtime/turn.js';
import { blockedToolResult } from '../blocked-tool-result.js';
import type { CommandHookAgent } from './agent.js';
import { agentOf } from './agent-identity.js';
import { hookToolCall } from './observed.js';

type HookEvent = Record<string, unknown>;

/**
 * `transform_tool_result` over a `PostToolUse`'s `tool_response`, for an agent that takes
 * another result from a hook (`agent.replacesResult`): the text the model gets in place of the
 * tool's — the rewrite (text as it is, anything else as JSON), or the refusal of a block — or
 * undefined when it keeps the tool's own. Not for other agents: they would show the model the
 * tool's result whatever the chain decided.
 */
export async function transformedResult(
  agent: CommandHookAgent,
  turn: Turn,
  event: HookEvent,
  cwd: string,
): Promise<string | undefined> {
  if (agent.replacesResult === undefined) return undefined;
  // Thrown, not skipped: the failure answer withholds the result (answers.ts, `failed`).
  if (typeof event.tool_name !== 'string') throw new Error('PostToolUse without tool_name');
  const call = hookToolCall(agent, event, cwd);
  const caller = agentOf(event);
  const outcome = await turn.transformToolResult({
    toolName: call.name,
    toolArgs: call.arguments,
    result: event.tool_response ?? '',
    ...(call.id === '' ? {} : { toolCallId: call.id }),
    ...(caller === undefined ? {} : { agent: caller }),
  });
  if (outcome.blocked) return blockedToolResult(outcome);
  if (!outcome.changed) return undefined;
  const value = outcome.value;
  return typeof value === 'string' ? value : (JSON.stringify(value) ?? '');
}
