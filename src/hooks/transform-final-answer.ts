import { z } from 'zod';
import type { HookDeclaration, TurnContext } from './declaration.js';
import type { Metadata, RewriteResult } from './results.js';
import { actionSchema } from './schemas.js';

/**
 * `transform_final_answer`: once per turn, on the main agent's last answer, before the user sees
 * it. `rewrite` replaces the answer (redact what must not leave, add a caveat); `block` withholds
 * it and the user gets the block message instead, naming the extension. What the turn did is in
 * `state`: a "no unverified claims" policy records the checks that ran (from
 * `intercept_tool_call` or `transform_tool_result`) and reads them here.
 *
 * Fails closed by default, like the other gates of what leaves the agent: a checker that throws
 * withholds the answer with a message that names it, rather than let through what it was written
 * to stop. A subagent's answer goes to its parent's model, not to the user, so it is not gated here.
 */
export interface FinalAnswerInput {
  answer: string;
}

export interface TransformFinalAnswerEvent {
  /** The answer as it stands: the model's, or the last rewrite's. */
  readonly answer: string;
  readonly sessionId: string;
  readonly platform: string;
  readonly turnId: string;
  readonly state: Record<string, unknown>;
  readonly metadata: Readonly<Metadata>;
}

export const transformFinalAnswer: HookDeclaration<
  FinalAnswerInput,
  string,
  TransformFinalAnswerEvent
> = {
  name: 'transform_final_answer',
  input: z.object({ answer: z.string() }),
  wire: { names: { answer: 'answer' } },
  samples: [
    { answer: 'Done: the tests pass and the change is in src/app.ts.' },
    { answer: 'I could not finish: the build fails on a missing module.' },
  ],
  defaultOnError: 'block',
  actions: {
    rewrite: actionSchema('rewrite', z.string({ error: 'rewrite value must be a string' })),
  },
  view: (input) => input.answer,
  unchanged: (input) => input.answer,
  event: (_input, answer, turn: TurnContext, metadata) =>
    Object.freeze({
      answer,
      sessionId: turn.sessionId,
      platform: turn.platform,
      turnId: turn.turnId,
      state: turn.state,
      metadata,
    }),
  fold: (_answer, result) => (result as RewriteResult<string>).value,
};
