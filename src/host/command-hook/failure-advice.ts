import type { Runtime } from '../../runtime/runtime.js';
import type { CommandHookAgent } from './agent.js';
import { NO_DECISION, type PendingAnswer } from './answers.js';
import { hookToolCall, type ReportOptions } from './observed.js';
import { describeFailure } from './reported.js';
import { resultChain, rewrittenBy } from './result-chain.js';
import { usingRuntime } from './runtime-source.js';
import type { TurnStore } from './turn-store.js';

type HookEvent = Record<string, unknown>;

/**
 * Claude Code's `PostToolUseFailure` (a Bash command that exited with another status than 0, a
 * tool that threw): the failed tool's `error` text through transform_tool_result, as a result
 * with `isError`, advice only (docs/command-hooks.md, Tool results). Claude Code shows the model
 * the error as it is, whatever a hook answers, and takes `additionalContext` beside it; so what
 * a rewrite added after the error's text — workflow-guard's line on a write its sandbox refused —
 * goes to the model as that context. A rewrite that changes the error itself (a redaction), a
 * rewrite into another form and a block cannot be honoured: the model reads the error already,
 * and repeating a changed copy beside it would only look honoured; the user is told instead. The
 * call ran already, so nothing here fails closed: should the chain not run, the error goes to
 * the model alone and the reason to stderr.
 */
export async function answerToolFailure(
  agent: CommandHookAgent,
  event: HookEvent,
  sessionId: string,
  options: ReportOptions,
): Promise<PendingAnswer> {
  if (typeof event.tool_name !== 'string' || typeof event.error !== 'string') return NO_DECISION;
  const cwd = typeof event.cwd === 'string' ? event.cwd : process.cwd();
  try {
    return await usingRuntime(
      options.runtimes,
      { cwd, home: options.home, logger: options.logger },
      (runtime) => advised(agent, event, sessionId, runtime, options.store),
    );
  } catch (error) {
    return {
      refuses: false,
      stderr: `hermes hook ${agent.name}: transform_tool_result did not run on a failed tool's error: ${describeFailure(error)}`,
    };
  }
}

function advised(
  agent: CommandHookAgent,
  event: HookEvent,
  sessionId: string,
  runtime: Runtime,
  store: TurnStore,
): Promise<PendingAnswer> {
  const error = String(event.error);
  const cwd = typeof event.cwd === 'string' ? event.cwd : process.cwd();
  const tool = hookToolCall(agent, event, cwd).name;
  return resultChain(
    agent,
    event,
    sessionId,
    runtime,
    store,
    { result: error, isError: true },
    (outcome) => ({
      answer: outcome.blocked
        ? notHonoured(agent, tool, outcome.blockedBy, 'refused')
        : outcome.changed
          ? contextOf(agent, tool, error, outcome.value, rewrittenBy(outcome.trace))
          : NO_DECISION,
      // Observers get the error the model reads, as at any failure.
      told: event,
    }),
  );
}

/** What a rewrite added after the error's own text, as context; any other rewrite is not honoured. */
function contextOf(
  agent: CommandHookAgent,
  tool: string,
  error: string,
  rewritten: unknown,
  by: string,
): PendingAnswer {
  const added =
    typeof rewritten === 'string' && rewritten.startsWith(error)
      ? rewritten.slice(error.length).trim()
      : undefined;
  if (added === undefined) return notHonoured(agent, tool, by, 'rewrote');
  if (added === '') return NO_DECISION;
  return {
    refuses: false,
    output: {
      hookSpecificOutput: { hookEventName: 'PostToolUseFailure', additionalContext: added },
    },
  };
}

function notHonoured(
  agent: CommandHookAgent,
  tool: string,
  by: string,
  did: 'rewrote' | 'refused',
): PendingAnswer {
  const why = `${by} ${did} the error of a failed ${tool} call, but ${agent.title} shows the model a failed tool's error as it is (PostToolUseFailure): only text added after it reaches the model`;
  return { refuses: false, output: { systemMessage: `Hermes: ${why}.` } };
}
