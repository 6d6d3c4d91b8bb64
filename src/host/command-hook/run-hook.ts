import { ConfigError } from '../../config/errors.js';
import { hermesHome } from '../../config/locations.js';
import type { Logger } from '../../log/logger.js';
import { loadRuntime } from '../../runtime/load-runtime.js';
import type { CommandHookAgent } from './agents.js';
import { TurnStore } from './turn-store.js';

/** What the hook process prints and how it exits, as the agent's hook protocol reads them. */
export interface HookAnswer {
  exitCode: number;
  stdout?: string;
  stderr?: string;
}

/**
 * `hermes hook <agent>`: one hook event of Claude Code or Codex (its JSON on stdin) through the
 * chains. `UserPromptSubmit` → transform_user_input (block ⇒ `decision: "block"`; a rewrite
 * cannot replace the prompt in this protocol, so it goes to the model as additional context);
 * `PreToolUse` → intercept_tool_call (block ⇒ `permissionDecision: "deny"` with the reason;
 * rewrite ⇒ `updatedInput`, with the agent's rewrite decision); the agent's end events (`Stop`,
 * and Claude Code's `SessionEnd`) → the turn ends and its state goes. The turn's state lives in
 * `$HERMES_HOME/turns/` between the separate processes of one turn; when the agent names its
 * turns (Codex's `turn_id`), a new id starts a new turn even if the last one never stopped.
 * Anything unexpected ends with exit 1 and a message on stderr: both agents' non-blocking error,
 * so a broken setup never blocks the user by accident (a guard's own `onError: 'block'` still
 * blocks). Only fields both agents accept are printed: Codex ignores an answer with any other.
 */
export async function runCommandHook(
  agent: CommandHookAgent,
  stdin: string,
  options: { home?: string; logger: Logger },
): Promise<HookAnswer> {
  const failure = (message: string): HookAnswer => ({
    exitCode: 1,
    stderr: `hermes hook ${agent.name}: ${message}`,
  });
  let event: Record<string, unknown>;
  try {
    event = JSON.parse(stdin) as Record<string, unknown>;
    if (event === null || typeof event !== 'object' || Array.isArray(event))
      throw new Error('not an object');
  } catch (error) {
    return failure(`stdin is not a hook event (JSON object): ${(error as Error).message}`);
  }
  const name = event.hook_event_name;
  const sessionId = event.session_id;
  if (typeof name !== 'string' || typeof sessionId !== 'string') {
    return failure('the hook event has no hook_event_name or session_id');
  }
  const home = hermesHome(options.home);
  const store = new TurnStore(home);
  if (agent.endEvents.includes(name)) {
    await store.end(sessionId);
    return { exitCode: 0 };
  }
  if (name !== 'UserPromptSubmit' && name !== 'PreToolUse') return { exitCode: 0 };

  const turnId = typeof event.turn_id === 'string' ? event.turn_id : undefined;
  const cwd = typeof event.cwd === 'string' ? event.cwd : process.cwd();
  let runtime: Awaited<ReturnType<typeof loadRuntime>>;
  try {
    runtime = await loadRuntime({ cwd, home, logger: options.logger });
  } catch (error) {
    const what = error instanceof ConfigError ? error.message : String(error);
    return failure(`cannot load the extensions: ${what}`);
  }

  if (name === 'UserPromptSubmit') {
    if (typeof event.prompt !== 'string') return failure('UserPromptSubmit without a prompt');
    const prompt = event.prompt;
    const outcome = await store.update(sessionId, { fresh: true, turnId }, (stored) =>
      runtime.runTurn(
        { sessionId, turnId: stored.turnId, platform: agent.name, initialState: stored.state },
        async (turn) => ({
          result: await turn.transformUserInput(prompt),
          state: { ...turn.state },
        }),
      ),
    );
    if (outcome.blocked) return answer({ decision: 'block', reason: reasonOf(outcome) });
    if (!outcome.changed) return { exitCode: 0 };
    return answer({
      hookSpecificOutput: {
        hookEventName: 'UserPromptSubmit',
        additionalContext: `Hermes extensions rewrote this request; treat it as: ${outcome.value}`,
      },
    });
  }

  const input = event.tool_input;
  if (
    typeof event.tool_name !== 'string' ||
    input === null ||
    typeof input !== 'object' ||
    Array.isArray(input)
  ) {
    return failure('PreToolUse without tool_name and a tool_input object');
  }
  const toolInput = input as Record<string, unknown>;
  const toolName = event.tool_name;
  const outcome = await store.update(sessionId, { turnId }, (stored) =>
    runtime.runTurn(
      { sessionId, turnId: stored.turnId, platform: agent.name, initialState: stored.state },
      async (turn) => ({
        result: await turn.interceptToolCall({
          ...agent.toolIn(toolName, toolInput, cwd),
          ...(typeof event.tool_use_id === 'string' ? { toolCallId: event.tool_use_id } : {}),
        }),
        state: { ...turn.state },
      }),
    ),
  );
  if (outcome.blocked) {
    return answer({
      hookSpecificOutput: {
        hookEventName: 'PreToolUse',
        permissionDecision: 'deny',
        permissionDecisionReason: reasonOf(outcome),
      },
    });
  }
  if (!outcome.changed) return { exitCode: 0 };
  return answer({
    hookSpecificOutput: {
      hookEventName: 'PreToolUse',
      permissionDecision: agent.rewriteDecision(event.permission_mode),
      permissionDecisionReason: 'Hermes extensions changed the arguments of this call.',
      updatedInput: agent.toolOut(toolName, toolInput, outcome.value),
    },
  });
}

function answer(output: unknown): HookAnswer {
  return { exitCode: 0, stdout: JSON.stringify(output) };
}

/** Codex ignores a block without a reason (and lets the call run): there is always one. */
function reasonOf(outcome: { message?: string; blockedBy?: string }): string {
  return outcome.message?.trim() || `blocked by the ${outcome.blockedBy ?? 'hermes'} extension`;
}
