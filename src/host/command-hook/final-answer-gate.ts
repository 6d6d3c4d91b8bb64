import type { Runtime } from '../../runtime/runtime.js';
import type { CommandHookAgent } from './agent.js';
import type { PendingAnswer } from './answers.js';
import { laterWork } from './observed.js';
import type { TurnStore } from './turn-store.js';

type HookEvent = Record<string, unknown>;

/**
 * Times in a row a gate may keep the main agent going at its `Stop`, per turn: Claude Code stops
 * after 8 blocks itself, Codex never does, and a gate that refuses every answer would keep it
 * going (and paying) for ever.
 */
export const MAX_ANSWER_BLOCKS = 8;

/** What the gate made of the answer at `Stop`: keep the agent going, or tell the user something. */
export type StopGate = { continues: PendingAnswer } | { notice: string } | undefined;

/**
 * transform_final_answer at the main agent's `Stop` (docs/command-hooks.md, The final answer).
 * The answer is the event's `last_assistant_message`, which the agent has already shown: the
 * protocol cannot withhold or rewrite it, only keep the agent going. So a block keeps the turn
 * (its state and its count of blocks) and answers `continueAtStop(message)`, and the model works
 * on with the reason as its next input; a rewrite cannot be applied, and the user is told what
 * the extension would have shown instead. Past `MAX_ANSWER_BLOCKS` blocks in a row the agent
 * stops, and the user is told why. Runs only where the turn's runtime has a gate (`reports`), so
 * a `Stop` without one loads nothing.
 */
export async function gateAtStop(
  agent: CommandHookAgent,
  event: HookEvent,
  sessionId: string,
  store: TurnStore,
  load: <T>(use: (runtime: Runtime) => Promise<T>) => Promise<T>,
): Promise<StopGate> {
  const continueAtStop = agent.continueAtStop;
  if (continueAtStop === undefined || typeof event.agent_id === 'string') return undefined;
  const stored = store.peek(sessionId);
  if (stored?.reports !== undefined && !stored.reports.includes('transform_final_answer')) {
    return undefined;
  }
  const answer = event.last_assistant_message;
  return load(async (runtime) => {
    if (!runtime.hasHook('transform_final_answer')) return undefined;
    if (typeof answer !== 'string') {
      return {
        notice: `Hermes: ${agent.title} sent no last_assistant_message at Stop, so transform_final_answer could not judge the answer (update ${agent.title}).`,
      };
    }
    return store.update(sessionId, { turnId: stored?.turnId }, async (turn) => {
      const blocks = turn.answerBlocks ?? 0;
      return runtime.runTurn(
        { sessionId, turnId: turn.turnId, platform: agent.name, initialState: turn.state },
        async (
          running,
        ): Promise<{
          result: StopGate;
          state: Record<string, unknown>;
          reports: string[];
          answerBlocks?: number;
        }> => {
          const outcome = await running.transformFinalAnswer(answer);
          const kept = { state: { ...running.state }, reports: laterWork(runtime) };
          if (outcome.blocked && blocks < MAX_ANSWER_BLOCKS) {
            const output = continueAtStop(
              `Your answer was not accepted (${outcome.blockedBy}): ${outcome.message}`,
            );
            return {
              result: { continues: { refuses: false, output } },
              ...kept,
              answerBlocks: blocks + 1,
            };
          }
          if (outcome.blocked) {
            const notice = `Hermes: ${outcome.blockedBy} did not accept the answer ${MAX_ANSWER_BLOCKS} times in a row, so ${agent.title} stopped with it: ${outcome.message}`;
            return { result: { notice }, ...kept };
          }
          if (outcome.changed) {
            const notice = `Hermes: ${changedBy(outcome.trace)} would have shown this answer instead; ${agent.title} shows the model's own: ${outcome.value}`;
            return { result: { notice }, ...kept };
          }
          return { result: undefined, ...kept, answerBlocks: 0 };
        },
      );
    });
  });
}

/** The extensions whose rewrite changed the answer, for the user's notice. */
function changedBy(trace: readonly { extension: string; action: string }[]): string {
  const names = [...new Set(trace.filter((e) => e.action === 'rewrite').map((e) => e.extension))];
  return names.length === 0 ? 'an extension' : names.join(', ');
}
