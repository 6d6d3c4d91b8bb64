import type { ChainOutcome } from '../../chain/outcome.js';
import type { LlmRequest } from '../../hooks/before-llm-call.js';
import type { ChatMessage } from '../../hooks/messages.js';
import type { Runtime } from '../../runtime/runtime.js';
import type { Turn } from '../../runtime/turn.js';
import { agentOf } from './agent-identity.js';
import type { CommandHookAgent } from './agents.js';
import { NO_DECISION, type PendingAnswer } from './answers.js';
import { hookToolCall } from './observed.js';

type HookEvent = Record<string, unknown>;

/**
 * `before_llm_call` in hook mode: the model request as far as a hook knows it. The agent keeps
 * its system prompt and history to itself, so `systemPrompt` is empty and the messages are what
 * the hook processes saw: the turn's prompt (as transform_user_input left it), then, after tool
 * results, the tool calls and their results that the next request carries.
 */
export function promptRequest(prompt: string): LlmRequest {
  return { systemPrompt: '', messages: [{ role: 'user', content: prompt }] };
}

/**
 * The request after tool results: one `PostToolUse` (its call), or Claude Code's `PostToolBatch`
 * (`tool_calls`, every call of the batch), after the turn's prompt when it is known.
 */
export function toolResultsRequest(
  agent: CommandHookAgent,
  event: HookEvent,
  cwd: string,
  prompt: string | undefined,
): LlmRequest {
  const results = Array.isArray(event.tool_calls)
    ? (event.tool_calls as unknown[]).filter(isRecord)
    : [event];
  const calls = results.map((result) => hookToolCall(agent, result, cwd));
  const messages: ChatMessage[] = prompt === undefined ? [] : [{ role: 'user', content: prompt }];
  if (calls.length > 0) messages.push({ role: 'assistant', content: '', toolCalls: calls });
  results.forEach((result, i) => {
    const call = calls[i] as (typeof calls)[number];
    messages.push({
      role: 'tool',
      content: resultText(result),
      toolCallId: call.id,
      name: call.name,
    });
  });
  return { systemPrompt: '', messages };
}

/** What a `before_llm_call` outcome becomes in hook mode. */
export interface LlmDelivery {
  /** The turn ends with this reason. */
  blocked?: string;
  /** Injected text, for the agent's `additionalContext`. */
  context?: string;
  /** Extensions whose rewrite of the messages cannot be applied (the agent has no way to). */
  rewrittenBy: string[];
}

/**
 * Injections become context: the system text (the request's system prompt starts empty, so all
 * of it was added) and each user message appended after the request's own. Any other change of
 * the messages is a rewrite no agent's hook protocol can express: it is named, not applied.
 */
export function llmDelivery(request: LlmRequest, outcome: ChainOutcome<LlmRequest>): LlmDelivery {
  if (outcome.blocked) {
    return {
      blocked: outcome.message.trim() || `blocked by the ${outcome.blockedBy} extension`,
      rewrittenBy: [],
    };
  }
  const texts: string[] = [];
  const system = outcome.value.systemPrompt.trim();
  if (system !== '') texts.push(system);
  const before = request.messages;
  const after = outcome.value.messages;
  const kept =
    after.length >= before.length &&
    before.every((message, i) => JSON.stringify(message) === JSON.stringify(after[i]));
  let rewritten = !kept;
  if (kept) {
    for (const message of after.slice(before.length)) {
      if (message.role === 'user' && message.content.trim() !== '') texts.push(message.content);
      else rewritten = true;
    }
  }
  const rewriters = outcome.trace.filter((e) => e.action === 'rewrite').map((e) => e.extension);
  return {
    ...(texts.length > 0 ? { context: texts.join('\n\n') } : {}),
    rewrittenBy: rewritten ? [...new Set(rewriters)] : [],
  };
}

/** The notice for a rewrite hook mode could not apply (told once a session). */
export function rewriteNotice(extensions: readonly string[]): string {
  const who = extensions.length > 0 ? extensions.join(', ') : 'an extension';
  return `Hermes: ${who} rewrote the messages of a model request (before_llm_call); hook mode cannot apply that, only injected text reaches the model.`;
}

/** What the model reads of a tool's result: the agent's text, or its JSON. */
function resultText(event: HookEvent): string {
  const response =
    event.hook_event_name === 'PostToolUseFailure' ? event.error : event.tool_response;
  return typeof response === 'string' ? response : (JSON.stringify(response) ?? '');
}

function isRecord(value: unknown): value is HookEvent {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** before_llm_call on what the hook knows of the request; none when nobody handles it. */
export async function beforeLlmCall(
  runtime: Runtime,
  turn: Turn,
  request: LlmRequest,
  iteration: number,
  event: HookEvent,
): Promise<LlmDelivery | undefined> {
  if (!runtime.hasHook('before_llm_call')) return undefined;
  const model = typeof event.model === 'string' ? { model: event.model } : {};
  const caller = agentOf(event);
  const outcome = await turn.beforeLlmCall({
    ...request,
    iteration,
    ...model,
    ...(caller === undefined ? {} : { agent: caller }),
  });
  return llmDelivery(request, outcome);
}

/** Context for the agent's next model request; nothing when there is none. */
export function withContext(eventName: string, context: string[]): PendingAnswer {
  if (context.length === 0) return NO_DECISION;
  return {
    refuses: false,
    output: {
      hookSpecificOutput: { hookEventName: eventName, additionalContext: context.join('\n\n') },
    },
  };
}
