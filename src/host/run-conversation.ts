import type { ChainOutcome } from '../chain/outcome.js';
import type { HookName } from '../hooks/index.js';
import type { ChatMessage, ToolCall } from '../hooks/messages.js';
import type { Runtime } from '../runtime/runtime.js';
import type { Turn } from '../runtime/turn.js';
import { blockedToolResult } from './blocked-tool-result.js';
import type { ModelClient, ToolSpec, Tools } from './types.js';

export interface RunConversationOptions {
  runtime: Runtime;
  sessionId: string;
  platform?: string;
  turnId?: string;
  userMessage: string;
  systemPrompt: string;
  /** Earlier messages of the session. Never mutated. */
  history?: readonly ChatMessage[];
  model: ModelClient;
  tools: Tools;
  /** Model requests per turn at most. Default 20. */
  maxIterations?: number;
  /** Told every chain's outcome as it happens (for logs, traces, a demo's story). Return ignored. */
  onHookOutcome?: (report: HookOutcomeReport) => void;
}

/** One chain run of the loop, as `onHookOutcome` is told of it. */
export interface HookOutcomeReport {
  hook: HookName;
  outcome: ChainOutcome<unknown>;
  /** The model request's iteration (`before_llm_call`, `intercept_tool_call`). */
  iteration?: number;
  /** The tool call it decided on (`intercept_tool_call`). */
  toolCall?: ToolCall;
}

/** What became of one tool call the model asked for. */
export interface ToolCallRecord {
  id: string;
  name: string;
  /** The arguments the tool ran with (after any rewrite), or would have run with if blocked. */
  arguments: Record<string, unknown>;
  /** The arguments the model asked for. */
  requestedArguments: Record<string, unknown>;
  blocked: boolean;
  blockedBy?: string;
  rewritten: boolean;
  /** The tool message content the model received. */
  result: string;
}

export interface ConversationResult {
  finalResponse: string;
  /** The history after this turn: without any ephemeral `before_llm_call` injection. */
  messages: ChatMessage[];
  blocked: boolean;
  toolCalls: ToolCallRecord[];
}

export const DEFAULT_MAX_ITERATIONS = 20;

/**
 * The reference agent loop (DESIGN §7), one turn of it, with the three hooks where the seed's
 * integration sketch puts them. Tool calls of one response go through the chain and run one
 * after another, in the order the model gave them, so per-turn state evolves predictably.
 */
export function runConversation(options: RunConversationOptions): Promise<ConversationResult> {
  const { runtime, sessionId, platform, turnId } = options;
  return runtime.runTurn({ sessionId, platform, turnId }, (turn) => converse(turn, options));
}

async function converse(turn: Turn, options: RunConversationOptions): Promise<ConversationResult> {
  const { model, tools, systemPrompt, maxIterations = DEFAULT_MAX_ITERATIONS } = options;
  const messages: ChatMessage[] = [...(options.history ?? [])];
  const toolCalls: ToolCallRecord[] = [];

  const report = options.onHookOutcome ?? (() => {});
  const input = await turn.transformUserInput(options.userMessage);
  report({ hook: 'transform_user_input', outcome: input });
  if (input.blocked) {
    return { finalResponse: input.message ?? '', messages, blocked: true, toolCalls };
  }
  messages.push({ role: 'user', content: input.value });

  const toolSpecs = describeTools(tools);
  let finalResponse = '';
  for (let iteration = 0; iteration < maxIterations; iteration++) {
    const request = await turn.beforeLlmCall({
      systemPrompt,
      messages,
      iteration,
      ...(model.name === undefined ? {} : { model: model.name }),
    });
    report({ hook: 'before_llm_call', outcome: request, iteration });
    if (request.blocked) {
      const message = request.message ?? '';
      messages.push({ role: 'assistant', content: message });
      return { finalResponse: message, messages, blocked: true, toolCalls };
    }
    const response = await model.complete({
      systemPrompt: request.value.systemPrompt,
      // A copy: the model client may keep or change what it is given.
      messages: [...request.value.messages],
      tools: toolSpecs,
    });
    finalResponse = response.content ?? '';
    const calls = response.toolCalls ?? [];
    messages.push(
      calls.length > 0
        ? { role: 'assistant', content: finalResponse, toolCalls: calls }
        : { role: 'assistant', content: finalResponse },
    );
    if (calls.length === 0) break;
    for (const call of calls) {
      const record = await runToolCall(turn, tools, call, (outcome) =>
        report({ hook: 'intercept_tool_call', outcome, iteration, toolCall: call }),
      );
      toolCalls.push(record);
      messages.push({ role: 'tool', content: record.result, toolCallId: call.id, name: call.name });
    }
  }
  return { finalResponse, messages, blocked: false, toolCalls };
}

async function runToolCall(
  turn: Turn,
  tools: Tools,
  call: ToolCall,
  report: (outcome: ChainOutcome<Record<string, unknown>>) => void,
): Promise<ToolCallRecord> {
  const requestedArguments = call.arguments ?? {};
  const outcome = await turn.interceptToolCall({
    toolName: call.name,
    toolArgs: requestedArguments,
    toolCallId: call.id,
  });
  report(outcome);
  const record = {
    id: call.id,
    name: call.name,
    arguments: outcome.value,
    requestedArguments,
    rewritten: outcome.changed,
  };
  if (outcome.blocked) {
    const blockedBy = outcome.blockedBy;
    return { ...record, blocked: true, blockedBy, result: blockedToolResult(outcome) };
  }
  return { ...record, blocked: false, result: await executeTool(tools, call.name, outcome.value) };
}

async function executeTool(
  tools: Tools,
  name: string,
  args: Record<string, unknown>,
): Promise<string> {
  const tool = Object.hasOwn(tools, name) ? tools[name] : undefined;
  if (!tool) return JSON.stringify({ error: `unknown tool "${name}"` });
  try {
    const result = await tool.execute(args);
    if (typeof result === 'string') return result;
    return result === undefined ? '' : JSON.stringify(result);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return JSON.stringify({ error: `tool "${name}" failed: ${message}` });
  }
}

function describeTools(tools: Tools): ToolSpec[] {
  return Object.entries(tools).map(([name, tool]) => ({
    name,
    ...(tool.description === undefined ? {} : { description: tool.description }),
    ...(tool.parameters === undefined ? {} : { parameters: tool.parameters }),
  }));
}
