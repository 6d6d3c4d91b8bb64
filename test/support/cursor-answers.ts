import { z } from 'zod';

/**
 * What Cursor accepts as a command hook's JSON answer, per Cursor event, as strict objects: a
 * field Cursor does not document for the event fails the check. From Cursor's hooks reference (a
 * before-hook's `permission`, `user_message`, `agent_message`; `beforeSubmitPrompt`'s `continue`
 * and `user_message`; `stop`'s `followup_message`; the after-events answer nothing) and, for
 * `preToolUse`'s `updated_input`, the third-party references src/host/command-hook/agents/cursor.ts
 * names. Cursor ignores a field it does not know, and a `permission` it cannot read is no
 * decision: the call runs. So the one field that refuses must be exactly right.
 */

const text = z.string();
const reason = z.string().refine((s) => s.trim() !== '', 'must not be empty');

/** A refusal or an ask says why, to the person and to the model. */
function saysWhy(o: { permission?: string; user_message?: string; agent_message?: string }) {
  if (o.permission !== 'deny' && o.permission !== 'ask') return true;
  return reason.safeParse(o.user_message).success && reason.safeParse(o.agent_message).success;
}

const permission = {
  permission: z.enum(['allow', 'deny', 'ask']).optional(),
  user_message: text.optional(),
  agent_message: text.optional(),
};

export const CURSOR_ANSWERS: Record<string, z.ZodType> = {
  preToolUse: z
    .strictObject({ ...permission, updated_input: z.record(z.string(), z.unknown()).optional() })
    .refine(saysWhy, 'a deny or ask without its reason')
    // Rewritten arguments with a decision that runs them (or asks about them as rewritten).
    .refine(
      (o) => o.updated_input === undefined || o.permission === 'allow' || o.permission === 'ask',
      'updated_input without allow or ask',
    ),
  beforeShellExecution: z.strictObject(permission).refine(saysWhy, 'a deny without its reason'),
  beforeMCPExecution: z.strictObject(permission).refine(saysWhy, 'a deny without its reason'),
  beforeReadFile: z.strictObject(permission).refine(saysWhy, 'a deny without its reason'),
  beforeSubmitPrompt: z
    .strictObject({ continue: z.boolean().optional(), user_message: text.optional() })
    .refine(
      (o) => o.continue !== false || reason.safeParse(o.user_message).success,
      'a blocked prompt without its reason',
    ),
  postToolUse: z.strictObject({}),
  postToolUseFailure: z.strictObject({}),
  stop: z.strictObject({ followup_message: text.optional() }),
  sessionEnd: z.strictObject({}),
  afterAgentResponse: z.strictObject({}),
};
