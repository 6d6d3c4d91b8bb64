import { ConfigError } from '../../config/errors.js';
import type { Logger } from '../../log/logger.js';
import type { Runtime } from '../../runtime/runtime.js';
import { blockedToolResult } from '../blocked-tool-result.js';
import type { CommandHookAgent, ResultReplacement } from './agent.js';
import type { PendingAnswer } from './answers.js';
import { NO_DECISION } from './answers.js';
import { describeFailure } from './reported.js';
import { resultChain, rewrittenBy } from './result-chain.js';
import { type RuntimeSource, usingRuntime } from './runtime-source.js';
import type { TurnStore } from './turn-store.js';

type HookEvent = Record<string, unknown>;

interface ResultOptions {
  home: string;
  logger: Logger;
  store: TurnStore;
  runtimes: RuntimeSource;
}

/**
 * `PostToolUse` where the agent can replace a result (`replaceToolResult`): the tool's
 * `tool_response` through transform_tool_result, in the turn's state, before the model reads it
 * (docs/command-hooks.md, Tool results). A rewrite or a refusal is answered in the form the agent
 * cannot ignore; observers are told the result the model gets. Fails closed: when the chain
 * cannot run (the extensions do not load, the turn's state cannot be used), the result is
 * refused with the reason, as a handler that throws refuses it.
 */
export async function answerToolResult(
  agent: CommandHookAgent & Required<Pick<CommandHookAgent, 'replaceToolResult'>>,
  event: HookEvent,
  sessionId: string,
  options: ResultOptions,
): Promise<PendingAnswer> {
  const toolName = event.tool_name;
  if (typeof toolName !== 'string') return NO_DECISION;
  const response = event.tool_response;
  const answerWith = (replacement: ResultReplacement): PendingAnswer => ({
    refuses: false,
    output: agent.replaceToolResult(toolName, response, replacement),
  });
  const cwd = typeof event.cwd === 'string' ? event.cwd : process.cwd();
  try {
    return await usingRuntime(
      options.runtimes,
      { cwd, home: options.home, logger: options.logger },
      (runtime) => transformed(agent, event, sessionId, runtime, options.store, answerWith),
    );
  } catch (error) {
    const why = error instanceof ConfigError ? error.message : describeFailure(error);
    const refusal = JSON.stringify({
      error: `Hermes could not check this tool result, so it is refused: ${why}`,
      blocked_by_extension: false,
    });
    return {
      ...answerWith({ refusal }),
      stderr: `hermes hook ${agent.name}: transform_tool_result did not run: ${why}`,
    };
  }
}

function transformed(
  agent: CommandHookAgent,
  event: HookEvent,
  sessionId: string,
  runtime: Runtime,
  store: TurnStore,
  answerWith: (replacement: ResultReplacement) => PendingAnswer,
): Promise<PendingAnswer> {
  const response = event.tool_response;
  return resultChain(
    agent,
    event,
    sessionId,
    runtime,
    store,
    { result: response, isError: false },
    (outcome) => {
      const answer = outcome.blocked
        ? answerWith({ refusal: blockedToolResult(outcome) })
        : outcome.changed
          ? answerWith({ rewritten: outcome.value, by: rewrittenBy(outcome.trace) })
          : NO_DECISION;
      // Observers get what the model gets: a redaction keeps the secret out of telemetry too.
      return { answer, told: { ...event, tool_response: shownResult(answer, response) } };
    },
  );
}

/** The result the answer puts before the model: its replacement, or the tool's own. */
function shownResult(answer: PendingAnswer, response: unknown): unknown {
  const specific = answer.output?.hookSpecificOutput as Record<string, unknown> | undefined;
  return specific !== undefined && 'updatedToolOutput' in specific
    ? specific.updatedToolOutput
    : response;
}
