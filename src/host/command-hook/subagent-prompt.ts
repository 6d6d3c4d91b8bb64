import type { Runtime } from '../../runtime/runtime.js';
import type { CommandHookAgent } from './agents.js';
import type { PendingAnswer } from './answers.js';
import { beforeLlmCall, promptRequest, rewriteNotice, withContext } from './llm-call.js';
import type { Notice, TurnStore } from './turn-store.js';

type HookEvent = Record<string, unknown>;

/**
 * A subagent's `UserPromptSubmit` (Codex sends one with the subagent's `agent_id`, its prompt the
 * task the main agent gave it). It is not a new turn: the subagent works in the turn that
 * started it, so the turn's state is kept (a fresh turn here would wipe the main agent's state in
 * the middle of its turn). It is not the user's input either, so `transform_user_input` does not
 * run; `before_llm_call` does, for the subagent's first model request (iteration 0, with
 * `agent`), and a block there refuses the subagent's prompt without ending the main agent's turn.
 * The turn's own iteration count and prompt stay the main agent's.
 */
export async function answerSubagentPrompt(
  agent: CommandHookAgent,
  event: HookEvent,
  sessionId: string,
  prompt: string,
  runtime: Runtime,
  store: TurnStore,
  notices: Notice[],
  deadline?: number,
): Promise<PendingAnswer> {
  const llm = await store.update(sessionId, {}, (stored) =>
    runtime.runTurn(
      {
        sessionId,
        turnId: stored.turnId,
        platform: agent.name,
        initialState: stored.state,
        ...(deadline === undefined ? {} : { deadline }),
      },
      async (turn) => ({
        result: await beforeLlmCall(runtime, turn, promptRequest(prompt), 0, event),
        state: { ...turn.state },
      }),
    ),
  );
  if (llm?.blocked !== undefined) {
    return { refuses: false, output: { decision: 'block', reason: llm.blocked } };
  }
  if (llm !== undefined && llm.rewrittenBy.length > 0) notices.push(rewriteNotice(llm.rewrittenBy));
  return withContext('UserPromptSubmit', llm?.context === undefined ? [] : [llm.context]);
}
