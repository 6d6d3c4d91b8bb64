import { z } from 'zod';

/**
 * What Antigravity accepts as a `PreToolUse` hook's answer: `{decision, reason}`, the decision
 * one of `allow`, `deny`, `ask`, `force_ask` and never missing — Antigravity fails closed on a
 * missing or malformed decision (safe-chains' `targets/agy`, verified on agy 1.1.2; cited in
 * src/host/command-hook/agents/antigravity.ts). A strict object: no field it does not document.
 */
export const ANTIGRAVITY_ANSWERS: Record<string, z.ZodType> = {
  PreToolUse: z
    .strictObject({
      decision: z.enum(['allow', 'deny', 'ask', 'force_ask']),
      reason: z.string().optional(),
      permissionOverrides: z.array(z.string()).optional(),
    })
    .refine(
      (o) => o.decision === 'allow' || (o.reason !== undefined && o.reason.trim() !== ''),
      'a refusal or an ask without its reason',
    ),
};
