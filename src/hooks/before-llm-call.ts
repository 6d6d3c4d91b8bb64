import { z } from 'zod';
import { type AgentIdentity, agentIdentitySchema, frozenAgent } from './agent-identity.js';
import type { HookDeclaration, TurnContext } from './declaration.js';
import { frozenCopy } from './frozen.js';
import {
  type ChatMessage,
  chatMessageSchema,
  messagesFromWire,
  messagesToWire,
} from './messages.js';
import type { AnyHookResult, Metadata, RewriteResult } from './results.js';
import { actionSchema, objectInput, textSchema } from './schemas.js';

/**
 * `before_llm_call`: before every model request of the tool loop. Injections and rewrites shape
 * *this* request only: the chain works on a copy, so the host's history and cached system prompt
 * never change and re-running the chain each iteration does not pile injections up.
 */
export interface LlmRequest {
  systemPrompt: string;
  messages: ChatMessage[];
  /**
   * The names of the tools this request offers the model: as the host passed them, narrowed by
   * `restrictTools`. Undefined when the host did not say and nobody restricted them.
   */
  tools?: readonly string[];
  /** Each `restrictTools` of this request, in chain order: who, why, and what it hid. */
  toolRestrictions?: readonly ToolRestriction[];
}

/** One `restrictTools` result as the request records it. */
export interface ToolRestriction {
  readonly extension: string;
  readonly reason?: string;
  /** The offered tools it took away (empty when the host did not say which were offered). */
  readonly hidden: readonly string[];
}

export interface BeforeLlmCallInput {
  systemPrompt: string;
  messages: ChatMessage[];
  /**
   * The names of the tools the host offers this request. Handlers see them (`event.tools`) and
   * may narrow them (`restrictTools`); the host then offers only `outcome.value.tools`, and a
   * call to any other tool in this request is refused before any handler runs.
   */
  tools?: readonly string[];
  /** 0 for the first request of a turn, then 1, 2, … for each tool-loop iteration. */
  iteration?: number;
  model?: string;
  /** The subagent whose model request this is; absent for the main agent. */
  agent?: AgentIdentity;
}

export interface BeforeLlmCallEvent {
  readonly systemPrompt: string;
  readonly messages: readonly Readonly<ChatMessage>[];
  /** The tools offered so far (earlier handlers' `restrictTools` applied); undefined when unknown. */
  readonly tools: readonly string[] | undefined;
  readonly iteration: number;
  readonly model?: string;
  /** The subagent whose model request this is; undefined for the main agent (agent-identity.ts). */
  readonly agent?: AgentIdentity;
  readonly sessionId: string;
  readonly turnId: string;
  readonly state: Record<string, unknown>;
  readonly metadata: Readonly<Metadata>;
}

const rewriteValue = z
  .strictObject({
    systemPrompt: z.string({ error: 'systemPrompt must be a string' }).optional(),
    messages: z.array(chatMessageSchema).optional(),
  })
  .refine((v) => v.systemPrompt !== undefined || v.messages !== undefined, {
    message: 'rewrite value must set systemPrompt, messages or both',
  });

const restrictValue = z.strictObject({
  tools: z.array(z.string({ error: 'tools must be tool names (strings)' })),
  reason: textSchema.optional(),
});

export const beforeLlmCall: HookDeclaration<BeforeLlmCallInput, LlmRequest, BeforeLlmCallEvent> = {
  name: 'before_llm_call',
  // Messages are only checked to be objects: a host's messages pass through with every field
  // they carry, and handlers' rewrites are what `chatMessageSchema` checks.
  input: z.object({
    systemPrompt: z.string(),
    messages: z.array(objectInput<ChatMessage>()),
    tools: z.array(z.string()).optional(),
    iteration: z.number().optional(),
    model: z.string().optional(),
    agent: agentIdentitySchema.optional(),
  }),
  wire: {
    names: {
      systemPrompt: 'system_prompt',
      messages: 'messages',
      tools: 'tools',
      iteration: 'iteration',
      model: 'model',
      agent: 'agent',
    },
    fromWire: (input) => ({ ...input, messages: messagesFromWire(input.messages) }),
    valueToWire: (request) => ({
      system_prompt: request.systemPrompt,
      messages: messagesToWire(request.messages),
      ...(request.tools === undefined ? {} : { tools: request.tools }),
      ...(request.toolRestrictions === undefined
        ? {}
        : { tool_restrictions: request.toolRestrictions }),
    }),
  },
  samples: [
    {
      systemPrompt: 'You are a coding agent.',
      messages: [{ role: 'user', content: 'hello' }],
    },
  ],
  defaultOnError: 'pass',
  actions: {
    inject_system: actionSchema('inject_system', textSchema),
    inject_user: actionSchema('inject_user', textSchema),
    rewrite: actionSchema('rewrite', rewriteValue),
    restrict_tools: actionSchema('restrict_tools', restrictValue),
  },
  prepare: (action, resultValue, request) =>
    action === 'restrict_tools' ? keptTools(resultValue, request) : resultValue,
  view: (input) =>
    Object.freeze(
      input.tools === undefined
        ? { systemPrompt: input.systemPrompt, messages: frozenCopy(input.messages) }
        : {
            systemPrompt: input.systemPrompt,
            messages: frozenCopy(input.messages),
            tools: frozenCopy(input.tools),
          },
    ),
  unchanged: (input) =>
    input.tools === undefined
      ? { systemPrompt: input.systemPrompt, messages: input.messages }
      : { systemPrompt: input.systemPrompt, messages: input.messages, tools: input.tools },
  event: (input, request, turn: TurnContext, metadata) =>
    Object.freeze({
      systemPrompt: request.systemPrompt,
      messages: request.messages,
      tools: request.tools,
      iteration: input.iteration ?? 0,
      model: input.model,
      agent: frozenAgent(input.agent),
      sessionId: turn.sessionId,
      turnId: turn.turnId,
      state: turn.state,
      metadata,
    }),
  fold: (request, result, extension) => Object.freeze(foldRequest(request, result, extension)),
};

function foldRequest(request: LlmRequest, result: AnyHookResult, extension: string): LlmRequest {
  switch (result.action) {
    case 'inject_system':
      return {
        ...request,
        // An empty prompt gets the text alone, not a blank line before it.
        systemPrompt: request.systemPrompt
          ? `${request.systemPrompt}\n\n${result.value}`
          : result.value,
      };
    case 'inject_user':
      return {
        ...request,
        messages: Object.freeze([
          ...request.messages,
          Object.freeze({ role: 'user' as const, content: result.value }),
        ]) as ChatMessage[],
      };
    case 'restrict_tools':
      return restrictRequest(request, result.value as RestrictValue, extension);
    default: {
      const next = (result as RewriteResult<Partial<LlmRequest>>).value;
      return {
        ...request,
        systemPrompt: next.systemPrompt ?? request.systemPrompt,
        // Already a frozen copy: the runner checked the rewrite's value to be JSON data.
        messages: next.messages ?? request.messages,
      };
    }
  }
}

type RestrictValue = z.output<typeof restrictValue>;

/**
 * A restriction only narrows: a name that was not offered is not added back. When the host did
 * not say which tools it offers, the names kept become the request's tools.
 */
function restrictRequest(
  request: LlmRequest,
  { tools: kept, reason }: RestrictValue,
  extension: string,
): LlmRequest {
  const keep = new Set(kept);
  const offered = request.tools;
  const tools = offered === undefined ? [...keep] : offered.filter((name) => keep.has(name));
  const hidden = offered === undefined ? [] : offered.filter((name) => !keep.has(name));
  const restriction: ToolRestriction = Object.freeze(
    reason === undefined
      ? { extension, hidden: Object.freeze(hidden) }
      : { extension, reason, hidden: Object.freeze(hidden) },
  );
  return {
    ...request,
    tools: Object.freeze(tools),
    toolRestrictions: Object.freeze([...(request.toolRestrictions ?? []), restriction]),
  };
}

/**
 * `restrictTools(predicate)` as the names it keeps of the tools the handler saw. A predicate needs
 * those tools: with none known it cannot be applied, and saying so beats guessing.
 */
function keptTools(resultValue: unknown, request: LlmRequest): unknown {
  if (resultValue === null || typeof resultValue !== 'object') return resultValue;
  const { tools, reason } = resultValue as { tools?: unknown; reason?: unknown };
  if (typeof tools !== 'function') return resultValue;
  if (request.tools === undefined) {
    throw new TypeError(
      'restrictTools(predicate) needs the tools the request offers, and the host did not pass them (before_llm_call `tools`); pass a list of tool names instead',
    );
  }
  const keep = request.tools.filter((name) => (tools as (name: string) => unknown)(name) === true);
  return reason === undefined ? { tools: keep } : { tools: keep, reason };
}
