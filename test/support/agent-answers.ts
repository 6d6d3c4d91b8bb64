import { z } from 'zod';
import { ANTIGRAVITY_ANSWERS } from './antigravity-answers.js';
import { CURSOR_ANSWERS } from './cursor-answers.js';

/**
 * What each agent accepts as a command hook's JSON answer, per event, as strict objects: a field
 * the agent does not document for the event fails the check (docs/command-hooks.md;
 * Claude Code 2.1, Codex 0.169). Codex's hook output parser is stricter still: an unknown field,
 * or a combination it does not support, makes it drop the whole answer and go on as if there were no hook (for a
 * tool call: run it). Every answer `hermes hook <agent>` prints is held to these in
 * test/host/command-hook/answer-schemas.test.ts.
 */

const text = z.string();
const nonEmpty = z.string().refine((s) => s.trim() !== '', 'must not be empty');
const args = z.record(z.string(), z.unknown());

const claudeUniversal = {
  continue: z.boolean().optional(),
  stopReason: text.optional(),
  suppressOutput: z.boolean().optional(),
  systemMessage: text.optional(),
  terminalSequence: text.optional(),
};

/** A top-level block (`decision: "block"` with its `reason`), on the events that have one. */
const claudeBlock = { decision: z.literal('block').optional(), reason: text.optional() };

export const CLAUDE_CODE_ANSWERS: Record<string, z.ZodType> = {
  // It cannot refuse anything: a session starts whatever a hook answers.
  SessionStart: z.strictObject({
    ...claudeUniversal,
    hookSpecificOutput: z
      .strictObject({
        hookEventName: z.literal('SessionStart'),
        additionalContext: text.optional(),
      })
      .optional(),
  }),
  UserPromptSubmit: z.strictObject({
    ...claudeUniversal,
    ...claudeBlock,
    suppressOriginalPrompt: z.boolean().optional(),
    hookSpecificOutput: z
      .strictObject({
        hookEventName: z.literal('UserPromptSubmit'),
        additionalContext: text.optional(),
        sessionTitle: text.optional(),
      })
      .optional(),
  }),
  PreToolUse: z.strictObject({
    ...claudeUniversal,
    hookSpecificOutput: z
      .strictObject({
        hookEventName: z.literal('PreToolUse'),
        permissionDecision: z.enum(['allow', 'deny', 'ask', 'defer']).optional(),
        permissionDecisionReason: text.optional(),
        updatedInput: args.optional(),
        additionalContext: text.optional(),
      })
      .optional(),
  }),
  PostToolUse: z.strictObject({
    ...claudeUniversal,
    ...claudeBlock,
    hookSpecificOutput: z
      .strictObject({
        hookEventName: z.literal('PostToolUse'),
        additionalContext: text.optional(),
        classifierContext: text.optional(),
        updatedToolOutput: z.unknown().optional(),
        updatedMCPToolOutput: z.unknown().optional(),
      })
      .optional(),
  }),
  PostToolUseFailure: z.strictObject({
    ...claudeUniversal,
    hookSpecificOutput: z
      .strictObject({
        hookEventName: z.literal('PostToolUseFailure'),
        additionalContext: text.optional(),
      })
      .optional(),
  }),
  PostToolBatch: z.strictObject({
    ...claudeUniversal,
    ...claudeBlock,
    hookSpecificOutput: z
      .strictObject({
        hookEventName: z.literal('PostToolBatch'),
        additionalContext: text.optional(),
      })
      .optional(),
  }),
  Stop: z
    .strictObject({
      ...claudeUniversal,
      ...claudeBlock,
      hookSpecificOutput: z
        .strictObject({ hookEventName: z.literal('Stop'), additionalContext: text.optional() })
        .optional(),
    })
    // "reason: required when decision is block".
    .refine((o) => o.decision === undefined || o.reason !== undefined, 'block without a reason'),
  // SubagentStart only adds context to the subagent; SubagentStop blocks as Stop does.
  SubagentStart: z.strictObject({
    ...claudeUniversal,
    hookSpecificOutput: z
      .strictObject({
        hookEventName: z.literal('SubagentStart'),
        additionalContext: text.optional(),
      })
      .optional(),
  }),
  SubagentStop: z
    .strictObject({ ...claudeUniversal, ...claudeBlock })
    .refine((o) => o.decision === undefined || o.reason !== undefined, 'block without a reason'),
  SessionEnd: z.strictObject(claudeUniversal),
};

const codexUniversal = {
  continue: z.boolean().optional(),
  stopReason: text.optional(),
  suppressOutput: z.boolean().optional(),
  systemMessage: text.optional(),
};

/** `decision: "block"` needs a non-empty reason, or the answer is invalid. */
function blockHasReason(o: { decision?: 'block' | undefined; reason?: string | undefined }) {
  return o.decision === undefined || (o.reason !== undefined && o.reason.trim() !== '');
}

export const CODEX_ANSWERS: Record<string, z.ZodType> = {
  SessionStart: z.strictObject({
    ...codexUniversal,
    hookSpecificOutput: z
      .strictObject({
        hookEventName: z.literal('SessionStart'),
        additionalContext: text.optional(),
      })
      .optional(),
  }),
  UserPromptSubmit: z
    .strictObject({
      ...codexUniversal,
      ...claudeBlock,
      hookSpecificOutput: z
        .strictObject({
          hookEventName: z.literal('UserPromptSubmit'),
          additionalContext: text.optional(),
        })
        .optional(),
    })
    .refine(blockHasReason, 'decision:block without a non-empty reason'),
  PreToolUse: z
    .strictObject({
      // `continue: false`, `stopReason` and `suppressOutput` are "unsupported" here.
      systemMessage: text.optional(),
      continue: z.literal(true).optional(),
      hookSpecificOutput: z
        .strictObject({
          hookEventName: z.literal('PreToolUse'),
          // `ask` is "unsupported".
          permissionDecision: z.enum(['allow', 'deny']).optional(),
          permissionDecisionReason: text.optional(),
          updatedInput: args.optional(),
          additionalContext: text.optional(),
        })
        .optional(),
    })
    .refine(({ hookSpecificOutput: o }) => {
      if (o === undefined) return true;
      // `allow` only with `updatedInput`, and `updatedInput` only with `allow`.
      if ((o.permissionDecision === 'allow') !== (o.updatedInput !== undefined)) return false;
      if (o.permissionDecision === 'deny')
        return nonEmpty.safeParse(o.permissionDecisionReason).success;
      // A reason without a decision is invalid.
      return o.permissionDecision !== undefined || o.permissionDecisionReason === undefined;
    }, 'a PreToolUse decision Codex does not accept'),
  PostToolUse: z
    .strictObject({
      // `suppressOutput` is "unsupported" here.
      continue: z.boolean().optional(),
      stopReason: text.optional(),
      systemMessage: text.optional(),
      ...claudeBlock,
      hookSpecificOutput: z
        .strictObject({
          hookEventName: z.literal('PostToolUse'),
          additionalContext: text.optional(),
          updatedMCPToolOutput: z.unknown().optional(),
        })
        .optional(),
    })
    .refine(blockHasReason, 'decision:block without a non-empty reason')
    .refine(
      (o) => o.decision !== undefined || o.continue === false || o.reason === undefined,
      'reason without decision',
    ),
  Stop: z
    .strictObject({ ...codexUniversal, ...claudeBlock })
    .refine(blockHasReason, 'decision:block without a non-empty reason'),
  // SubagentStart takes context for the subagent only (it cannot refuse one); SubagentStop is
  // answered as Stop is.
  SubagentStart: z.strictObject({
    ...codexUniversal,
    hookSpecificOutput: z
      .strictObject({
        hookEventName: z.literal('SubagentStart'),
        additionalContext: text.optional(),
      })
      .optional(),
  }),
  SubagentStop: z
    .strictObject({ ...codexUniversal, ...claudeBlock })
    .refine(blockHasReason, 'decision:block without a non-empty reason'),
};

/** The schema of `agent`'s answer to `event`; an event the agent has no answer for fails. */
export function answerSchema(agent: string, event: string): z.ZodType {
  const answers: Record<string, Record<string, z.ZodType>> = {
    'claude-code': CLAUDE_CODE_ANSWERS,
    codex: CODEX_ANSWERS,
    cursor: CURSOR_ANSWERS,
    antigravity: ANTIGRAVITY_ANSWERS,
  };
  const table = answers[agent];
  if (table === undefined) throw new Error(`no answer schemas for the agent ${agent}`);
  const schema = table[event];
  if (schema === undefined) throw new Error(`${agent} has no hook answer for ${event}`);
  return schema;
}
