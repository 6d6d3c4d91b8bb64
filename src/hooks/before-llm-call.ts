import { z } from 'zod';
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
}

export interface BeforeLlmCallInput extends LlmRequest {
  /** 0 for the first request of a turn, then 1, 2, … for each tool-loop iteration. */
  iteration?: number;
  model?: string;
}

export interface BeforeLlmCallEvent {
  readonly systemPrompt: string;
  readonly messages: readonly Readonly<ChatMessage>[];
  readonly iteration: number;
  readonly model?: string;
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

export const beforeLlmCall: HookDeclaration<BeforeLlmCallInput, LlmRequest, BeforeLlmCallEvent> = {
  name: 'before_llm_call',
  // Messages are only checked to be objects: a host's messages pass through with every field
  // they carry, and handlers' rewrites are what `chatMessageSchema` checks.
  input: z.object({
    systemPrompt: z.string(),
    messages: z.array(objectInput<ChatMessage>()),
    iteration: z.number().optional(),
    model: z.string().optional(),
  }),
  wire: {
    names: {
      systemPrompt: 'system_prompt',
      messages: 'messages',
      iteration: 'iteration',
      model: 'model',
    },
    fromWire: (input) => ({ ...input, messages: messagesFromWire(input.messages) }),
    valueToWire: (request) => ({
      system_prompt: request.systemPrompt,
      messages: messagesToWire(request.messages),
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
  },
  view: (input) =>
    Object.freeze({ systemPrompt: input.systemPrompt, messages: frozenCopy(input.messages) }),
  unchanged: (input) => ({ systemPrompt: input.systemPrompt, messages: input.messages }),
  event: (input, request, turn: TurnContext, metadata) =>
    Object.freeze({
      systemPrompt: request.systemPrompt,
      messages: request.messages,
      iteration: input.iteration ?? 0,
      model: input.model,
      sessionId: turn.sessionId,
      turnId: turn.turnId,
      state: turn.state,
      metadata,
    }),
  fold: (request, result) => Object.freeze(foldRequest(request, result)),
};

function foldRequest(request: LlmRequest, result: AnyHookResult): LlmRequest {
  switch (result.action) {
    case 'inject_system':
      return {
        systemPrompt: `${request.systemPrompt}\n\n${result.value}`,
        messages: request.messages,
      };
    case 'inject_user':
      return {
        systemPrompt: request.systemPrompt,
        messages: Object.freeze([
          ...request.messages,
          Object.freeze({ role: 'user' as const, content: result.value }),
        ]) as ChatMessage[],
      };
    default: {
      const next = (result as RewriteResult<Partial<LlmRequest>>).value;
      return {
        systemPrompt: next.systemPrompt ?? request.systemPrompt,
        // Already a frozen copy: the runner checked the rewrite's value to be JSON data.
        messages: next.messages ?? request.messages,
      };
    }
  }
}
