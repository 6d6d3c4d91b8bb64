import { ConfigError } from '../../config/errors.js';
import { hermesHome, hermesHomeProblem } from '../../config/locations.js';
import type { Logger } from '../../log/logger.js';
import { describeLoadFailures, followedBy } from '../../runtime/load-failures.js';
import type { Runtime } from '../../runtime/runtime.js';
import { answerToolResults } from './after-tools.js';
import type { CommandHookAgent } from './agent.js';
import { agentProblem } from './agent-identity.js';
import { failed, type HookAnswer, NO_DECISION, render } from './answers.js';
import { answerDecided, callKeyOf } from './decisions.js';
import { answerToolFailure } from './failure-advice.js';
import { gateAtStop } from './final-answer-gate.js';
import { reportToolOutcome, turnIdOf } from './observed.js';
import { answerToolCall } from './pre-tool-use.js';
import { answerPrompt } from './prompt-answer.js';
import { describeFailure, reported } from './reported.js';
import { loadPerEvent, type RuntimeSource, usingRuntime } from './runtime-source.js';
import { pinnedRuntimes, sessionPin } from './session-root.js';
import { isSubagentStop, mainAgentStopped } from './subagent-lifecycle.js';
import { subagentEvent } from './subagent-reports.js';
import { answerToolResult } from './tool-result.js';
import { noteReportedCalls } from './turn-coverage.js';
import { turnEnded } from './turn-end.js';
import { type Notice, TurnStore } from './turn-store.js';

export type { HookAnswer } from './answers.js';

type HookEvent = Record<string, unknown>;

/** What a `PostToolUse` that can replace a result runs or tells (answerToolResults). */
const AT_RESULT = ['transform_tool_result', 'post_tool_call', 'before_llm_call'];

export interface CommandHookOptions {
  home?: string;
  logger: Logger;
  /** Where runtimes come from: by default one is loaded per event and closed after it. */
  runtimes?: RuntimeSource;
  /**
   * When the chains must have decided, as a `Date.now()` time: a little before the hook's own
   * deadline (hook-deadline.ts `chainsDeadline`), so a chain past it answers with its own reason.
   */
  deadline?: number;
}

/**
 * `hermes hook <agent>`: one hook event of an agent (its JSON on stdin) through the chains. The
 * agent's declaration (agent.ts, agents/) maps its event onto the events below — the protocol
 * Claude Code defined — and the answer back into its own wire; what follows is in those terms.
 * `UserPromptSubmit` → transform_user_input (block ⇒ `decision: "block"`; a rewrite
 * cannot replace the prompt in this protocol, so it goes to the model as additional context),
 * then before_llm_call for the turn's first model request (llm-call.ts: injections go to the model
 * as additional context, a block ends the turn); the agent's `afterToolEvents` (Claude Code's
 * `PostToolBatch`, Codex's `PostToolUse`) → before_llm_call for the next model request;
 * `PreToolUse` → intercept_tool_call (tool-call-answer.ts: block ⇒ `permissionDecision: "deny"`
 * with the reason; ask ⇒ `"ask"` where the agent has it, else a deny saying who asked; rewrite ⇒
 * `updatedInput`, with the agent's rewrite decision); the agent's end events (`Stop`,
 * and Claude Code's `SessionEnd`) → the turn ends and its state goes; `PostToolUse` → answered
 * with nothing unless it is an after-tools event (otherwise only reported); Claude Code's
 * `PostToolUseFailure` → transform_tool_result on the failed tool's error, what it adds as
 * context (failure-advice.ts). Observers are told
 * what the process knows, as the in-process host tells them (observed.ts): `on_session_start` at
 * the prompt, `pre_tool_call`, `hook_decision`, for a call put to the person `pre_approval_request`
 * (the answer is the agent's, never a hook's) and, for a refused call, its `post_tool_call` at
 * `PreToolUse`, the call's outcome at `PostToolUse`, `on_session_end` at the end of the turn; the
 * runtime is closed before the process exits, so what they buffered is written. The turn's state
 * lives in `$HERMES_HOME/turns/` between the separate processes of one turn; when the agent names
 * its turns (Codex's `turn_id`), a new id starts a new turn even if the last one never stopped.
 *
 * One decision per tool call (decisions.ts): a `PreToolUse` is decided, and its answer recorded
 * by its `tool_use_id`, in one update of the turn under its lock; the same call again (a late
 * daemon after the fallback answered, a retried hook) gets that answer, and its id with another
 * call a deny. At the turn's end the user is told, once a session, of calls whose outcome the
 * agent reported but that were never decided: the hook did not run for them (turn-coverage.ts).
 *
 * Fails closed: both agents run a tool call whose hook exits 1, crashes or answers what they do
 * not accept, so every failure — an event that cannot be read, a config that does not load, a
 * turn-state store that cannot be used — answers a `PreToolUse` with a deny that says why, and
 * never exits non-zero. Other events go on, and the user is told (`systemMessage`): a prompt is
 * not swallowed by a broken setup (its turn starts by removing the last turn's state, so a
 * failure after that leaves the calls that follow checked from scratch, and refused while the
 * store stays broken), and a `Stop` whose state cannot be removed still stops (`decision:
 * "block"` there would keep the agent going; the state is removed by age). Things the
 * user should know once per session (a project whose guards are not running because it is not
 * trusted, an extension that failed to load) are told once, on the first answer that refuses
 * nothing. Each agent gets only the fields it accepts for the event (`CommandHookAgent`): Codex
 * ignores a whole answer with any other.
 */
export async function runCommandHook(
  agent: CommandHookAgent,
  stdin: string,
  options: CommandHookOptions,
): Promise<HookAnswer> {
  let raw: HookEvent;
  try {
    raw = JSON.parse(stdin) as HookEvent;
    if (raw === null || typeof raw !== 'object' || Array.isArray(raw))
      throw new Error('not an object');
  } catch (error) {
    const why = `stdin is not a hook event (JSON object): ${(error as Error).message}`;
    return render(agent, undefined, failed(agent, undefined, why));
  }
  // The agent's event in the engine's form (agent.ts): identity for Claude Code and Codex.
  const event = agent.readEvent(raw);
  if (typeof event === 'string') return render(agent, undefined, failed(agent, undefined, event));
  // An event that does not say what it is may be a tool call: it is treated as one.
  const name = typeof event.hook_event_name === 'string' ? event.hook_event_name : undefined;
  try {
    return await answerEvent(agent, event, name, options);
  } catch (error) {
    return render(agent, name, failed(agent, name, describeFailure(error)));
  }
}

async function answerEvent(
  agent: CommandHookAgent,
  event: HookEvent,
  name: string | undefined,
  options: CommandHookOptions,
): Promise<HookAnswer> {
  const sessionId = event.session_id;
  const home = hermesHome(options.home);
  const store = new TurnStore(home);
  // Every runtime of a session is its pinned project's, whatever folder this event comes from.
  const runtimes =
    typeof sessionId === 'string'
      ? pinnedRuntimes(options.runtimes ?? loadPerEvent, () =>
          sessionPin(agent, event, sessionId, store, home),
        )
      : (options.runtimes ?? loadPerEvent);
  const reporting = { home, logger: options.logger, store, runtimes };
  const afterTools = name !== undefined && agent.afterToolEvents.includes(name);
  // Where a hook can replace a tool's result, transform_tool_result decides what the model gets.
  const replaces = name === 'PostToolUse' && afterTools && agent.replacesResult !== undefined;
  if ((name === 'PostToolUse' || name === 'PostToolUseFailure' || afterTools) && !replaces) {
    // Nothing to do but report, or nothing at all: the answer is nothing, which both agents take
    // as "go on".
    if (typeof sessionId !== 'string') return render(agent, name, NO_DECISION);
    // Calls the agent ran without asking the hook show here first (told at the turn's end).
    await noteReportedCalls(store, event, sessionId);
    // What this turn has observers or handlers for: no need to load every extension to find out.
    const later = store.peek(sessionId)?.reports;
    // A result the extensions may redact or refuse is judged before anything else: where the
    // agent can replace it, this answer is what the model reads (tool-result.ts). Unknown
    // (no turn stored): the extensions are loaded to find out.
    if (
      name === 'PostToolUse' &&
      !afterTools &&
      agent.replaceToolResult !== undefined &&
      later?.includes('transform_tool_result') !== false
    ) {
      const replaces = { ...agent, replaceToolResult: agent.replaceToolResult };
      return render(agent, name, await answerToolResult(replaces, event, sessionId, reporting));
    }
    // A failed tool's error: what transform_tool_result adds to it reaches the model as context.
    if (
      name === 'PostToolUseFailure' &&
      agent.failureContext === true &&
      later?.includes('transform_tool_result') !== false
    ) {
      return render(agent, name, await answerToolFailure(agent, event, sessionId, reporting));
    }
    const reports = name !== 'PostToolBatch' && later?.includes('post_tool_call') !== false;
    if (!afterTools || later?.includes('before_llm_call') === false) {
      if (!reports) return render(agent, name, NO_DECISION);
      return reported(agent, name, reportToolOutcome(agent, event, sessionId, reporting));
    }
  }
  if (replaces && typeof sessionId === 'string') {
    await noteReportedCalls(store, event, sessionId);
    const later = store.peek(sessionId)?.reports;
    // This turn has nothing to run or tell here: the result stays, unloaded.
    if (later !== undefined && !later.some((work) => AT_RESULT.includes(work))) {
      return render(agent, name, NO_DECISION);
    }
  }
  if (name === undefined || typeof sessionId !== 'string') {
    return render(
      agent,
      name,
      failed(agent, name, 'the hook event has no hook_event_name or session_id'),
    );
  }
  const homeProblem = hermesHomeProblem(home);
  if (homeProblem !== undefined) return render(agent, name, failed(agent, name, homeProblem));
  if (name === 'SubagentStart' || isSubagentStop(name, event)) {
    return subagentEvent(agent, event, name, sessionId, reporting);
  }
  if (name === 'Stop') {
    const cwd = typeof event.cwd === 'string' ? event.cwd : process.cwd();
    const gate = await gateAtStop(agent, event, sessionId, store, (use) =>
      usingRuntime(runtimes, { cwd, home, logger: options.logger }, use),
    );
    // The answer was not accepted: the agent goes on, and the turn with it.
    if (gate !== undefined && 'continues' in gate) return render(agent, name, gate.continues);
    const stop = await mainAgentStopped(store, sessionId, event);
    // Subagents of the turn still run: their calls are the turn's, so it waits for them.
    if (stop.waits) return render(agent, name, NO_DECISION);
    const notices = gate === undefined ? [] : [gate.notice];
    return turnEnded(agent, event, sessionId, stop.ended, reporting, notices);
  }
  if (agent.endEvents.includes(name)) {
    const open = await store.end(sessionId);
    return turnEnded(agent, event, sessionId, open, reporting);
  }
  if (name === 'PreToolUse') {
    // A call decided already (a late daemon, a retried hook): its answer, without loading
    // anything. Read without the lock: a decision, once written, is never changed.
    const key = callKeyOf(agent, event);
    const stored = key && store.peek(sessionId);
    const turnId = turnIdOf(event);
    const current = turnId === undefined || stored?.turnId === turnId ? stored : undefined;
    const decided = key && answerDecided(agent, current, key);
    if (decided !== undefined) return render(agent, name, decided);
  }
  if (name !== 'UserPromptSubmit' && name !== 'PreToolUse' && !afterTools) {
    return render(agent, name, NO_DECISION);
  }
  // A subagent's id that is not a string is a malformed event, refused as any other would be.
  const agentInvalid = agentProblem(event);
  if (agentInvalid !== undefined) return render(agent, name, failed(agent, name, agentInvalid));

  const cwd = typeof event.cwd === 'string' ? event.cwd : process.cwd();
  let runtime: Runtime;
  try {
    runtime = await runtimes.acquire({ cwd, home, logger: options.logger });
  } catch (error) {
    const what = error instanceof ConfigError ? error.message : describeFailure(error);
    return render(agent, name, failed(agent, name, `cannot load the extensions: ${what}`));
  }
  try {
    const notices = sessionNotices(runtime);
    const answer =
      name === 'UserPromptSubmit'
        ? await answerPrompt(agent, event, sessionId, runtime, store, notices, options.deadline)
        : name === 'PreToolUse'
          ? await answerToolCall(agent, event, sessionId, runtime, store, options.deadline)
          : await answerToolResults(
              agent,
              event,
              sessionId,
              runtime,
              store,
              notices,
              options.deadline,
            );
    if (answer.refuses) return render(agent, name, answer);
    return render(agent, name, answer, await store.tellOnce(sessionId, notices));
  } finally {
    // The process exits once it has answered: what extensions buffered is flushed first.
    await runtimes.release(runtime);
  }
}

/** What the user should hear once per session: guards that are not running, and why. */
function sessionNotices(runtime: Runtime): Notice[] {
  const notices: Notice[] = [];
  const untrusted = runtime.diagnostics.find((d) => d.code === 'UNTRUSTED');
  if (untrusted !== undefined) {
    notices.push(
      `Hermes: this project's extensions and config are not running. ${untrusted.message}`,
    );
  }
  const held = runtime.diagnostics.find((d) => d.code === 'TRUST_HELD');
  // Broken, it is among the load failures below, which say that every call is refused.
  if (held !== undefined && held.severity !== 'error') notices.push(`Hermes: ${held.message}`);
  if (runtime.loadFailures.length > 0) {
    const consequence =
      runtime.onLoadError === 'block'
        ? 'every tool call is refused until it is fixed (extensions.on_load_error: block)'
        : 'tool calls run without it (extensions.on_load_error: warn)';
    notices.push(
      followedBy(`Hermes: ${describeLoadFailures(runtime.loadFailures)}`, '; ', `${consequence}.`),
    );
  }
  return notices;
}
