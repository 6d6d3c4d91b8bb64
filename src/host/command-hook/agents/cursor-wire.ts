import type { HookAnswer, WireAnswer } from '../wire.js';

type Output = Record<string, unknown>;

/**
 * The engine's answer (Claude Code's form, wire.ts) in Cursor's: a tool call's `permission`
 * (`deny` and `ask` with the reason for the person as `user_message` and for the model as
 * `agent_message`; a rewrite as `updated_input` with `allow`); a prompt's `continue` (false with
 * the reason when it is blocked); `{}` for everything else and for no decision. Always a JSON
 * object and exit 0: Cursor expects JSON on every path, and exit 2 would be a refusal of its own
 * that carries no reason.
 *
 * What Cursor has no field for is not sent: context for the model (additionalContext: Cursor's
 * prompt answer takes none) and notices for the user on answers that refuse nothing (they go to
 * stderr, which Cursor shows in its hooks output); docs/cursor.md.
 */
export function writeCursorAnswer(answer: WireAnswer): HookAnswer {
  const output = answer.output ?? {};
  const cursor =
    answer.event === undefined || answer.event === 'PreToolUse'
      ? toolCallAnswer(output)
      : answer.event === 'UserPromptSubmit'
        ? promptAnswer(output)
        : {};
  const notice = typeof output.systemMessage === 'string' ? output.systemMessage : undefined;
  const stderr = [answer.stderr, notice].filter((line) => line !== undefined).join('\n');
  return { exitCode: 0, stdout: JSON.stringify(cursor), ...(stderr ? { stderr } : {}) };
}

function toolCallAnswer(output: Output): Output {
  const specific = (output.hookSpecificOutput ?? {}) as Output;
  const decision = specific.permissionDecision;
  const reason =
    typeof specific.permissionDecisionReason === 'string'
      ? specific.permissionDecisionReason
      : undefined;
  const updated = specific.updatedInput as Output | undefined;
  if (decision === 'deny' || decision === 'ask') {
    return {
      permission: decision,
      ...(reason === undefined ? {} : { user_message: reason, agent_message: reason }),
      ...(updated === undefined ? {} : { updated_input: updated }),
    };
  }
  if (updated !== undefined) return { permission: 'allow', updated_input: updated };
  return {};
}

function promptAnswer(output: Output): Output {
  if (output.decision === 'block') {
    const reason = typeof output.reason === 'string' ? output.reason : 'blocked by Hermes';
    return { continue: false, user_message: reason };
  }
  return { continue: true };
}
