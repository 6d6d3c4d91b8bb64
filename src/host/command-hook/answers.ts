import { hermesCommand } from '../../command-name.js';
import type { CommandHookAgent } from './agent.js';
import type { HookAnswer } from './wire.js';

export type { HookAnswer } from './wire.js';

/**
 * An answer before it is printed: the JSON object (none: the agent goes on as if there were no
 * hook), and whether it refuses a tool call. Notices for the user ride only on answers that do not
 * refuse: both agents accept `systemMessage` everywhere today, but should a parser ever reject it,
 * a refusal must not be the answer that gets dropped.
 */
export interface PendingAnswer {
  output?: Record<string, unknown>;
  refuses: boolean;
  stderr?: string;
}

export const NO_DECISION: PendingAnswer = { refuses: false };

/** `permissionDecision: "deny"` with the reason: what both agents honour as a refused call. */
export function deny(reason: string, stderr?: string): PendingAnswer {
  return {
    refuses: true,
    output: {
      hookSpecificOutput: {
        hookEventName: 'PreToolUse',
        permissionDecision: 'deny',
        permissionDecisionReason: reason,
      },
    },
    ...(stderr === undefined ? {} : { stderr }),
  };
}

/**
 * Hermes itself failed on this event. A tool call (or an event that cannot even be read, which
 * may have been one) is refused with the reason: both agents run the call on a failing hook
 * (exit 1, a crash, output they do not accept), so no failure may end that way. Any other event
 * goes on — a broken setup must not swallow the user's prompt — and the user is told.
 */
export function failed(
  agent: CommandHookAgent,
  eventName: string | undefined,
  message: string,
): PendingAnswer {
  const stderr = `hermes hook ${agent.name}: ${message}`;
  if (eventName === undefined || eventName === 'PreToolUse') {
    return deny(`Hermes could not check this call, so it is refused: ${message}`, stderr);
  }
  // A result transform_tool_result could not check may hold what it hides: withheld.
  if (eventName === 'PostToolUse' && agent.replacesResult !== undefined) {
    const error = `Hermes could not check this tool's result, so it is withheld: ${message}`;
    return {
      refuses: true,
      output: agent.replacesResult(
        JSON.stringify({ error, blocked_by_extension: true, extension: 'hermes-extensions' }),
      ),
      stderr,
    };
  }
  return { refuses: false, output: { systemMessage: `Hermes: ${message}` }, stderr };
}

/**
 * The answer to `event` (the engine's name for it; undefined when it could not be read) as the
 * agent reads it, with the notices not yet told added as the user-visible `systemMessage`.
 */
export function render(
  agent: Pick<CommandHookAgent, 'writeAnswer'>,
  event: string | undefined,
  answer: PendingAnswer,
  notices: readonly string[] = [],
): HookAnswer {
  let output = answer.output;
  if (notices.length > 0 && !answer.refuses) {
    const earlier = typeof output?.systemMessage === 'string' ? [output.systemMessage] : [];
    output = { ...output, systemMessage: [...earlier, ...notices].join('\n') };
  }
  return agent.writeAnswer({
    event,
    refuses: answer.refuses,
    ...(output === undefined ? {} : { output }),
    ...(answer.stderr === undefined ? {} : { stderr: answer.stderr }),
  });
}

/**
 * The engine's name for the event `input` holds (the agent's stdin), undefined when it cannot be
 * read: what a failure is answered as (a refusal, unless it is known to be no tool call).
 */
export function engineEventName(
  agent: Pick<CommandHookAgent, 'readEvent'>,
  input: string | Record<string, unknown> | undefined,
): string | undefined {
  try {
    const raw = typeof input === 'string' ? (JSON.parse(input) as unknown) : input;
    if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return undefined;
    const event = agent.readEvent(raw as Record<string, unknown>);
    const name = typeof event === 'string' ? undefined : event.hook_event_name;
    return typeof name === 'string' ? name : undefined;
  } catch {
    return undefined;
  }
}

/** Codex ignores a block without a reason (and lets the call run): there is always one. */
export function reasonOf(outcome: { message: string; blockedBy: string }): string {
  return outcome.message.trim() || `blocked by the ${outcome.blockedBy} extension`;
}

/**
 * What the hook process writes for `answer`, byte for byte, and its exit code: the answer's stdout
 * as a line; on stderr, what was logged while it was worked out (`logged`, lines already) and
 * then the answer's stderr as a line.
 */
export function printed(
  answer: HookAnswer,
  logged = '',
): { stdout: string; stderr: string; exitCode: number } {
  return {
    stdout: answer.stdout ? `${answer.stdout}\n` : '',
    stderr: logged + (answer.stderr ? `${answer.stderr}\n` : ''),
    exitCode: answer.exitCode,
  };
}

/**
 * The answer to an event not decided within `deadlineMs`: a refusal for a tool call. `waiting`:
 * the locks (and their holders) its work was still waiting for, if any.
 */
export function lateAnswer(
  agent: CommandHookAgent,
  eventName: string | undefined,
  deadlineMs: number,
  waiting?: string,
): HookAnswer {
  const seconds = Number((deadlineMs / 1000).toFixed(1));
  const why =
    waiting === undefined
      ? `the extensions did not decide within ${seconds} s (HERMES_HOOK_DEADLINE_MS); a handler or an extension's loading is hanging — \`${hermesCommand()} extensions doctor\` runs every hook and names slow ones`
      : `it was not decided within ${seconds} s (HERMES_HOOK_DEADLINE_MS): it was still waiting for ${waiting} (another hook of this session at work with its turn; if that process is not a hook of this agent, end it or remove the file)`;
  return render(agent, eventName, failed(agent, eventName, why));
}
