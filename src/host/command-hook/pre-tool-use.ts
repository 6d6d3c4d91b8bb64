import type { Runtime } from '../../runtime/runtime.js';
import type { CommandHookAgent } from './agent.js';
import { agentOf } from './agent-identity.js';
import { agentVersionFromEnv } from './agent-version-env.js';
import { deny, failed, type PendingAnswer } from './answers.js';
import { answerDecided, callKeyOf, withDecision } from './decisions.js';
import { hookTelemetry, hookToolCall, laterWork, turnIdOf } from './observed.js';
import { subagentCoverage } from './subagent-coverage.js';
import { refusalOf, toolCallAnswer } from './tool-call-answer.js';
import type { TurnStore } from './turn-store.js';

type HookEvent = Record<string, unknown>;

/**
 * `PreToolUse`: the call through intercept_tool_call in the turn's state, once per call id
 * (decisions.ts), answered in the agent's form (tool-call-answer.ts). A turn Hermes refused
 * refuses each of its calls.
 */
export async function answerToolCall(
  agent: CommandHookAgent,
  event: HookEvent,
  sessionId: string,
  runtime: Runtime,
  store: TurnStore,
  deadline: number | undefined,
): Promise<PendingAnswer> {
  const input = event.tool_input;
  if (
    typeof event.tool_name !== 'string' ||
    input === null ||
    typeof input !== 'object' ||
    Array.isArray(input)
  ) {
    return failed(agent, 'PreToolUse', 'PreToolUse without tool_name and a tool_input object');
  }
  const toolInput = input as Record<string, unknown>;
  const toolName = event.tool_name;
  // The agent's shell runs in the event's folder: relative paths in a command are below it.
  const cwd = typeof event.cwd === 'string' ? event.cwd : process.cwd();
  const key = callKeyOf(agent, event);
  return store.update(sessionId, { turnId: turnIdOf(event) }, async (stored) => {
    // Under the turn's lock: of two processes with the same call, the second answers what the
    // first decided, and neither runs the chain, reports or counts a call twice.
    const decided = key && answerDecided(agent, stored, key);
    if (decided !== undefined) return { result: decided, unchanged: true as const };
    if (stored.refused !== undefined) {
      const why = `Hermes refused this turn's request, so each of its tool calls is refused too: ${stored.refused}`;
      return { result: deny(why), unchanged: true as const };
    }
    return runtime.runTurn(
      {
        sessionId,
        turnId: stored.turnId,
        platform: agent.name,
        initialState: stored.state,
        ...(deadline === undefined ? {} : { deadline }),
      },
      async (turn) => {
        const telemetry = hookTelemetry(turn, event);
        const call = hookToolCall(agent, event, cwd);
        const started = performance.now();
        telemetry.preTool(call);
        // A call the agent runs where no event says is refused by the framework, as a decision.
        const unjudgeable = agent.unjudged?.(toolName, toolInput, cwd);
        const caller = agentOf(event);
        const result = await turn.interceptToolCall({
          toolName: call.name,
          toolArgs: call.arguments,
          ...(typeof event.tool_use_id === 'string' ? { toolCallId: event.tool_use_id } : {}),
          ...(caller === undefined ? {} : { agent: caller }),
          ...(agent.spawnTools.includes(toolName)
            ? { spawn: subagentCoverage(agent, agentVersionFromEnv(agent)) }
            : {}),
          ...(unjudgeable === undefined ? {} : { unjudgeable }),
        });
        const answer = toolCallAnswer(agent, result, {
          input: toolInput,
          updatedInput: () => agent.toolOut(toolName, toolInput, result.value),
        });
        // The agent sends no PostToolUse for a call it was told not to run: its outcome is now.
        const refusal = refusalOf(answer);
        if (refusal !== undefined)
          telemetry.postTool(call, undefined, {
            status: 'blocked',
            result: refusal,
            durationMs: performance.now() - started,
          });
        // The agent asks the person itself and never tells a hook the answer: only the request
        // is told (post_approval_response never comes from a command hook).
        if (!result.blocked && result.ask !== undefined && agent.canAsk) {
          telemetry.approvalRequested({
            toolName: call.name,
            toolCallId: call.id,
            toolArgs: result.value,
            ask: result.ask,
            trace: result.trace,
            surface: 'agent',
            host: 'command_hook',
          });
        }
        return {
          result: answer,
          state: { ...turn.state },
          reports: laterWork(runtime),
          ...(key === undefined ? {} : { decisions: withDecision(stored, key, answer) }),
        };
      },
    );
  });
}
