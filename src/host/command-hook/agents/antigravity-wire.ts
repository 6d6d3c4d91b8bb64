import type { HookAnswer, WireAnswer } from '../wire.js';

type Output = Record<string, unknown>;

const CANNOT_REWRITE =
  'Hermes extensions rewrote this call, and Antigravity hooks cannot rewrite one, so it is refused; make the call in the form the extensions allow';

/**
 * The engine's answer to a tool call in Antigravity's wire: `{decision, reason}` on stdout, exit 0.
 * Antigravity fails closed on a missing or malformed decision, so every answer carries one: no
 * objection is `allow` (which does not skip Antigravity's own approval); a refusal `deny`; an ask
 * `force_ask`, which asks the person even where they once chose "always allow" (`ask` would
 * not); a rewrite cannot be expressed (Antigravity has no field for rewritten arguments), so the
 * call is refused, saying so, rather than run as the model wrote it. Notices ride on stderr.
 */
export function writeAntigravityAnswer(answer: WireAnswer): HookAnswer {
  const output = answer.output ?? {};
  const specific = (output.hookSpecificOutput ?? {}) as Output;
  const reason =
    typeof specific.permissionDecisionReason === 'string'
      ? specific.permissionDecisionReason
      : undefined;
  const decision = specific.permissionDecision;
  // A rewrite (alone, or with an ask about the rewritten call) first: asking about the call as
  // the model wrote it would approve what the extensions changed.
  const wire =
    decision === 'deny'
      ? { decision: 'deny', reason: reason ?? 'refused by Hermes' }
      : specific.updatedInput !== undefined
        ? { decision: 'deny', reason: CANNOT_REWRITE }
        : decision === 'ask'
          ? { decision: 'force_ask', reason: reason ?? 'Hermes asks for approval' }
          : answer.event === undefined
            ? { decision: 'deny', reason: 'Hermes could not read this hook event' }
            : { decision: 'allow' };
  const notice = typeof output.systemMessage === 'string' ? output.systemMessage : undefined;
  const stderr = [answer.stderr, notice].filter((line) => line !== undefined).join('\n');
  return { exitCode: 0, stdout: JSON.stringify(wire), ...(stderr ? { stderr } : {}) };
}
