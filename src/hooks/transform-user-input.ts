import { z } from 'zod';
import type { HookDeclaration, TurnContext } from './declaration.js';
import type { Metadata, RewriteResult } from './results.js';
import { actionSchema } from './schemas.js';

/** `transform_user_input`: once per user turn; `rewrite` replaces the message, `block` ends the turn. */
export interface TransformUserInputEvent {
  readonly userMessage: string;
  readonly sessionId: string;
  readonly platform: string;
  readonly turnId: string;
  readonly state: Record<string, unknown>;
  readonly metadata: Readonly<Metadata>;
}

export const transformUserInput: HookDeclaration<string, string, TransformUserInputEvent> = {
  name: 'transform_user_input',
  defaultOnError: 'pass',
  actions: {
    rewrite: actionSchema('rewrite', z.string({ error: 'rewrite value must be a string' })),
  },
  view: (userMessage) => userMessage,
  unchanged: (userMessage) => userMessage,
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
