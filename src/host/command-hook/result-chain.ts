import type { ChainOutcome } from '../../chain/outcome.js';
import type { Runtime } from '../../runtime/runtime.js';
import type { CommandHookAgent } from './agent.js';
import { agentOf } from './agent-identity.js';
import { NO_DECISION, type PendingAnswer } from './answers.js';
import { hookToolCall, laterWork, tellToolOutcome, turnIdOf } from './observed.js';
import type { TurnStore } from './turn-store.js';

type HookEvent = Record<string, unknown>;

/** What a host makes of the chain's outcome: its answer, and the event observers are told of. */
export interface ResultDecision {
  answer: PendingAnswer;
  told: HookEvent;
}

/**
 * A tool's result (`PostToolUse`'s response, `PostToolUseFailure`'s error) through
 * transform_tool_result in the turn's state. Without a result handler no turn is opened: the
 * observers are told of the outcome and nothing is answered.
 */
export async function resultChain(
  agent: CommandHookAgent,
  event: HookEvent,
  sessionId: string,
  runtime: Runtime,
  store: TurnStore,
  given: { result: unknown; isError: boolean },
  decide: (outcome: ChainOutcome<unknown>) => ResultDecision,
): Promise<PendingAnswer> {
  if (!runtime.hasHook('transform_tool_result')) {
    const turnId = store.peek(sessionId)?.turnId ?? turnIdOf(event) ?? '';
    tellToolOutcome(runtime, agent, event, sessionId, turnId);
    return NO_DECISION;
  }
  const cwd = typeof event.cwd === 'string' ? event.cwd : process.cwd();
  return store.update(sessionId, { turnId: turnIdOf(event) }, (stored) =>
    runtime.runTurn(
      { sessionId, turnId: stored.turnId, platform: agent.name, initialState: stored.state },
      async (turn) => {
        const call = hookToolCall(agent, event, cwd);
        const caller = agentOf(event);
        const outcome = await turn.transformToolResult({
          toolName: call.name,
          toolArgs: call.arguments,
          result: given.result,
          isError: given.isError,
          ...(call.id === '' ? {} : { toolCallId: call.id }),
          ...(caller === undefined ? {} : { agent: caller }),
        });
        const { answer, told } = decide(outcome);
        tellToolOutcome(runtime, agent, told, sessionId, turn.turnId);
        return { result: answer, state: { ...turn.state }, reports: laterWork(runtime) };
      },
    ),
  );
}

/** The extensions whose rewrite made the new result, for the user's message. */
export function rewrittenBy(trace: readonly { extension: string; action: string }[]): string {
  const names = [...new Set(trace.filter((e) => e.action === 'rewrite').map((e) => e.extension))];
  return names.length === 0 ? 'an extension' : names.join(', ');
}
