import type { ChatMessage } from '../hooks/messages.js';
import type { AgentLoop, LoopEnd } from './agent-loop-types.js';
import type { ToolCallRecord } from './conversation-types.js';
import { runSubagent } from './subagent.js';
import { runToolCall } from './tool-call.js';
import type { ToolSpec, Tools } from './types.js';

export type { AgentLoop, LoopEnd } from './agent-loop-types.js';

/**
 * The tool loop: `before_llm_call` before each model request (a block is the answer), each tool
 * call of the answer through `runToolCall`, until the model answers without tool calls or
 * `maxIterations` is reached. `messages` (whose last is the user's or the subagent's task) and
 * `toolCalls` grow in place, so the caller has them even when the loop throws.
 */
export async function runAgentLoop(
  loop: AgentLoop,
  messages: ChatMessage[],
  toolCalls: ToolCallRecord[],
): Promise<LoopEnd> {
  const { turn, model, tools, signal, telemetry, agent } = loop;
  const who = agent === undefined ? {} : { agent };
  const toolSpecs = describeTools(tools);
  const toolNames = toolSpecs.map((spec) => spec.name);
  let finalResponse = '';
  for (let iteration = 0; iteration < loop.maxIterations; iteration++) {
    if (signal?.aborted) return { finalResponse, blocked: false, cancelled: true };
    const request = await turn.beforeLlmCall({
      systemPrompt: loop.systemPrompt,
      messages,
      iteration,
      tools: toolNames,
      ...(model.name === undefined ? {} : { model: model.name }),
      ...who,
    });
    loop.report({ hook: 'before_llm_call', outcome: request, iteration, ...who });
    if (request.blocked) {
      messages.push({ role: 'assistant', content: request.message });
      return { finalResponse: request.message, blocked: true, cancelled: false };
    }
    const modelRequest = {
      systemPrompt: request.value.systemPrompt,
      // A copy: the model client may keep or change what it is given.
      messages: [...request.value.messages],
      tools: offeredTools(toolSpecs, request.value.tools),
    };
    const attempt = telemetry.preApi(modelRequest, model);
    let response: Awaited<ReturnType<typeof model.complete>>;
    try {
      response = await model.complete(modelRequest);
    } catch (error) {
      telemetry.apiError(attempt, error);
      throw error;
    }
    telemetry.postApi(attempt, response);
    finalResponse = response.content ?? '';
    const calls = response.toolCalls ?? [];
    messages.push(
      calls.length > 0
        ? { role: 'assistant', content: finalResponse, toolCalls: calls }
        : { role: 'assistant', content: finalResponse },
    );
    if (calls.length === 0) break;
    for (const call of calls) {
      const record = await runToolCall(turn, tools, call, {
        signal,
        agent,
        runSubagent: (declared, options) => runSubagent(loop, declared, options, runAgentLoop),
        taskId: loop.taskId,
        approve: loop.approve,
        approvals: loop.approvals,
        telemetry,
        attempt,
        report: (hook, outcome) =>
          loop.report({ hook, outcome, iteration, toolCall: call, ...who }),
      });
      toolCalls.push(record);
      messages.push({ role: 'tool', content: record.result, toolCallId: call.id, name: call.name });
    }
  }
  return { finalResponse, blocked: false, cancelled: signal?.aborted === true };
}

/** The specs of the tools the request offers, after any `restrictTools` (all when it says none). */
function offeredTools(specs: ToolSpec[], names: readonly string[] | undefined): ToolSpec[] {
  if (names === undefined) return specs;
  const offered = new Set(names);
  return specs.filter((spec) => offered.has(spec.name));
}

function describeTools(tools: Tools): ToolSpec[] {
  return Object.entries(tools).map(([name, tool]) => ({
    name,
    ...(tool.description === undefined ? {} : { description: tool.description }),
    ...(tool.parameters === undefined ? {} : { parameters: tool.parameters }),
  }));
}
