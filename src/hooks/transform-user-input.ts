import { z } from 'zod';
import type { HookDeclaration, TurnContext } from './declaration.js';
import type { Metadata, RewriteResult } from './results.js';
import { actionSchema } from './schemas.js';

export interface UserInput {
  userMessage: string;
}

/** `transform_user_input`: once per user turn; `rewrite` replaces the message, `block` ends the turn. */
export interface TransformUserInputEvent {
  readonly userMessage: string;
  readonly sessionId: string;
  readonly platform: string;
  readonly turnId: string;
  readonly state: Record<string, unknown>;
  readonly metadata: Readonly<Metadata>;
}

export const transformUserInput: HookDeclaration<UserInput, string, TransformUserInputEvent> = {
  name: 'transform_user_input',
  input: z.object({ userMessage: z.string() }),
  wire: { names: { userMessage: 'user_message' } },
  samples: [
    { userMessage: 'implement a small change to the project' },
    { userMessage: 'what does this project do?' },
  ],
  defaultOnError: 'pass',
  actions: {
    rewrite: actionSchema('rewrite', z.string({ error: 'rewrite value must be a string' })),
  },
  view: (input) => input.userMessage,
  unchanged: (input) => input.userMessage,
  event: (_input, userMessage, turn: TurnContext, metadata) =>
    Object.freeze({
      userMessage,
      sessionId: turn.sessionId,
      platform: turn.platform,
      turnId: turn.turnId,
      state: turn.state,
      metadata,
    }),
  fold: (_message, result) => (result as RewriteResult<string>).value,
};
