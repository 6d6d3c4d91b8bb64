import type { Runtime } from '../../runtime/runtime.js';
import type { CommandHookAgent } from './agents.js';
import { NO_DECISION, type PendingAnswer } from './answers.js';
import {
  beforeLlmCall,
  type LlmDelivery,
  rewriteNotice,
  toolResultsRequest,
  withContext,
} from './llm-call.js';
import { hookTelemetry, laterWork, tellToolOutcome, turnIdOf } from './observed.js';
import { transformedResult } from './result-answer.js';
import { uncheckedNotice } from './turn-coverage.js';
import type { Notice, TurnStore } from './turn-store.js';

type HookEvent = Record<string, unknown>;

/**
 * After tool results (Claude Code's `PostToolBatch`, Codex's `PostToolUse`): the call's outcome
 * to observers where this event is a tool's (Codex), then `before_llm_call` for the next model
 * request, numbered after the last one of the turn. A block ends the turn the way the agent
 * allows there (`agent.endLoop`), and the answer that ends it tells what `Stop` would have: calls
 * of the turn the hook never decided (turn-coverage.ts). In a subagent's loop a block ends that
 * loop only, and the turn goes on. Where the agent takes another result from a hook (OpenCode),
 * `transform_tool_result` runs first (result-answer.ts): observers are told the result the model
 * gets, and the answer carries it.
 */
export async function answerToolResults(
  agent: CommandHookAgent,
  event: HookEvent,
  sessionId: string,
  runtime: Runtime,
  store: TurnStore,
  notices: Notice[],
  deadline?: number,
): Promise<PendingAnswer> {
  const name = String(event.hook_event_name);
  const cwd = typeof event.cwd === 'string' ? event.cwd : process.cwd();
  const fromSubagent = typeof event.agent_id === 'string';
  const { llm, replaced } = await store.update(sessionId, { turnId: turnIdOf(event) }, (stored) =>
    runtime.runTurn(
      {
        sessionId,
        turnId: stored.turnId,
        platform: agent.name,
        initialState: stored.state,
        ...(deadline === undefined ? {} : { deadline }),
      },
      async (turn) => {
        const replaced =
          name === 'PostToolUse' ? await transformedResult(agent, turn, event, cwd) : undefined;
        const told = replaced === undefined ? event : { ...event, tool_response: replaced };
        if (name !== 'PostToolBatch') tellToolOutcome(runtime, agent, told, sessionId, turn.turnId);
        const iteration = (stored.iteration ?? 0) + 1;
        const request = toolResultsRequest(agent, event, cwd, stored.prompt);
        const llm = await beforeLlmCall(runtime, turn, request, iteration, event);
        if (llm?.blocked !== undefined && !fromSubagent) {
          hookTelemetry(turn, event).sessionEnd(true, false, 'blocked');
        }
        return {
          result: { llm, replaced },
          state: { ...turn.state },
          reports: laterWork(runtime),
          iteration,
        };
      },
    ),
  );
  const answer = await llmAnswer(agent, name, llm, fromSubagent, sessionId, store, notices);
  return replaced === undefined ? answer : withResult(agent, replaced, answer);
}

async function llmAnswer(
  agent: CommandHookAgent,
  name: string,
  llm: LlmDelivery | undefined,
  fromSubagent: boolean,
  sessionId: string,
  store: TurnStore,
  notices: Notice[],
): Promise<PendingAnswer> {
  if (llm === undefined) return NO_DECISION;
  // A block in a subagent's loop ends that loop only: the turn it belongs to goes on, with its
  // state (ending it here would reset what the main agent's calls count on).
  if (llm.blocked !== undefined && fromSubagent) {
    return { refuses: false, output: agent.endLoop(llm.blocked) };
  }
  if (llm.blocked !== undefined) {
    // Only bookkeeping: a store that fails here must not turn the block into a message.
    const ended = await store.end(sessionId).catch(() => undefined);
    const unchecked = uncheckedNotice(agent, ended);
    if (unchecked !== undefined) notices.push(unchecked);
    return { refuses: false, output: agent.endLoop(llm.blocked) };
  }
  if (llm.rewrittenBy.length > 0) notices.push(rewriteNotice(llm.rewrittenBy));
  return withContext(name, llm.context === undefined ? [] : [llm.context]);
}

/** The answer with the result that replaces the tool's merged in (agent.replacesResult). */
function withResult(
  agent: CommandHookAgent,
  replaced: string,
  answer: PendingAnswer,
): PendingAnswer {
  const result = agent.replacesResult?.(replaced) ?? {};
  const specific = {
    ...(answer.output?.hookSpecificOutput as Record<string, unknown> | undefined),
    ...(result.hookSpecificOutput as Record<string, unknown> | undefined),
  };
  return { ...answer, output: { ...answer.output, ...result, hookSpecificOutput: specific } };
}
