import type { Runtime } from '../../runtime/runtime.js';
import type { CommandHookAgent } from './agent.js';
import { failed, type PendingAnswer, reasonOf } from './answers.js';
import { beforeLlmCall, promptRequest, rewriteNotice, withContext } from './llm-call.js';
import { hookTelemetry, laterWork, turnIdOf } from './observed.js';
import { answerSubagentPrompt } from './subagent-prompt.js';
import type { Notice, TurnStore } from './turn-store.js';

type HookEvent = Record<string, unknown>;

/**
 * `UserPromptSubmit`: the turn starts (its last state goes), transform_user_input runs on the
 * prompt, then before_llm_call for the turn's first model request (llm-call.ts). A block ends the
 * turn with `decision: "block"`; where the agent cannot refuse a prompt, the turn stays, refused
 * (its tool calls are denied in pre-tool-use.ts), and the model is told. A rewrite and injections
 * reach the model as context. A subagent's prompt joins its turn instead (subagent-prompt.ts).
 */
export async function answerPrompt(
  agent: CommandHookAgent,
  event: HookEvent,
  sessionId: string,
  runtime: Runtime,
  store: TurnStore,
  notices: Notice[],
  deadline?: number,
): Promise<PendingAnswer> {
  if (typeof event.prompt !== 'string')
    return failed(agent, 'UserPromptSubmit', 'UserPromptSubmit without a prompt');
  const prompt = event.prompt;
  if (typeof event.agent_id === 'string') {
    return answerSubagentPrompt(agent, event, sessionId, prompt, runtime, store, notices, deadline);
  }
  const { input, llm } = await store.update(
    sessionId,
    { fresh: true, turnId: turnIdOf(event) },
    (stored) =>
      runtime.runTurn(
        {
          sessionId,
          turnId: stored.turnId,
          platform: agent.name,
          initialState: stored.state,
          ...(deadline === undefined ? {} : { deadline }),
        },
        async (turn) => {
          const telemetry = hookTelemetry(turn, event);
          // Turn-scoped, as runConversation reports it: the agent's prompt starts the turn.
          telemetry.sessionStart();
          const input = await turn.transformUserInput(prompt);
          // The first model request of the turn, as runConversation runs it: iteration 0.
          const llm = input.blocked
            ? undefined
            : await beforeLlmCall(runtime, turn, promptRequest(input.value), 0, event);
          // A blocked prompt is the whole turn (runConversation ends it the same way).
          const blocked = input.blocked ? reasonOf(input) : llm?.blocked;
          if (blocked !== undefined) telemetry.sessionEnd(true, false, 'blocked');
          // An agent that cannot refuse the prompt keeps the turn, refused: its calls are denied,
          // and its end is not reported again.
          const refused = blocked !== undefined && !agent.blocksPrompt;
          const reports = laterWork(runtime);
          return {
            result: { input, llm },
            state: { ...turn.state },
            reports: refused ? reports.filter((work) => work !== 'on_session_end') : reports,
            iteration: 0,
            ...(input.blocked ? {} : { prompt: input.value }),
            ...(refused ? { refused: blocked } : {}),
          };
        },
      ),
  );
  const blocked = input.blocked ? reasonOf(input) : llm?.blocked;
  if (blocked !== undefined && !agent.blocksPrompt) {
    // The turn stays, refused (above): the model hears why, and each call it tries is denied.
    return withContext('UserPromptSubmit', [refusedRequest(blocked)]);
  }
  if (blocked !== undefined) {
    // Its turn has ended and been reported: a Stop after it must not report it again. Only
    // bookkeeping: a store that fails here must not turn the block into a message.
    await store.end(sessionId).catch(() => {});
    return { refuses: false, output: { decision: 'block', reason: blocked } };
  }
  const context = [
    ...(input.changed
      ? [`Hermes extensions rewrote this request; treat it as: ${input.value}`]
      : []),
    ...(llm?.context === undefined ? [] : [llm.context]),
  ];
  if (llm !== undefined && llm.rewrittenBy.length > 0) notices.push(rewriteNotice(llm.rewrittenBy));
  return withContext('UserPromptSubmit', context);
}

/**
 * What the model is told of a request the extensions refused, where the agent cannot refuse a
 * prompt: not to act on it, and to tell the user (each tool call it tries is refused anyway).
 */
function refusedRequest(reason: string): string {
  return `Hermes extensions refused this request: ${reason}. Do not carry it out: every tool call in this turn is refused. Tell the user it was refused and why.`;
}
