import { randomUUID } from 'node:crypto';
import type { ChainOutcome, TraceEntry } from '../chain/outcome.js';
import type { LlmRequest } from '../hooks/before-llm-call.js';
import type { HookName } from '../hooks/index.js';
import type { ChatMessage, ToolCall } from '../hooks/messages.js';
import {
  type ApiAttempt,
  type ApiRuntime,
  apiIds,
  type ObservedRequest,
  type ObservedResponse,
  requestChars,
  UNOBSERVED_ATTEMPT,
} from './api-attempt.js';
import { apiErrorFields, thrownErrorOf } from './api-error.js';
import {
  type ApprovalAnswer,
  type AskedCall,
  type PendingApproval,
  pendingOf,
  requestFields,
  responseFields,
} from './approval-events.js';
import { OBSERVER_EVENTS, type ObserverEvent } from './events.js';
import type { ObserverSink } from './observers.js';
import { sanitize } from './sanitize.js';
import {
  type StartedSubagent,
  type StoppedSubagent,
  subagentStartFields,
  subagentStopFields,
} from './subagent-events.js';

export type {
  ApiAttempt,
  ApiRuntime,
  ObservedRequest,
  ObservedResponse,
} from './api-attempt.js';
export { UNOBSERVED_ATTEMPT } from './api-attempt.js';

export type ToolStatus = 'ok' | 'error' | 'blocked' | 'cancelled';

/** The correlation ids every event of a turn carries. */
export interface TurnIds {
  session_id: string;
  turn_id: string;
  task_id: string;
  platform: string;
  model?: string;
  provider?: string;
  /**
   * The subagent whose calls these are (the command hooks' `agent_id` / `agent_type`); absent
   * for the main agent. Set once per process there: each hook event is its own process.
   */
  agent_id?: string;
  agent_type?: string;
}

/**
 * The observer events of one turn, with its correlation ids: a host's own events (API requests,
 * tool runs, the session's start and end) and the turn's `hook_decision`s, which the turn reports
 * itself (`runtime/turn.ts`). Each payload is built only when some extension observes that event,
 * so an unobserved turn pays one lookup per event.
 */
export class TurnTelemetry {
  #apiCalls = 0;
  /** Failed model requests since the last answer: a host that tries again reports retries. */
  #failuresInARow = 0;
  /** Whether anyone observes anything: without observers, no id, clock read or payload at all. */
  readonly active: boolean;
  /**
   * The model request whose tool calls are running (the last `preApi`): the tool calls' events
   * and decisions name it. Unset by hosts that never see a model request (the command hooks).
   */
  attempt: ApiAttempt | undefined;

  constructor(
    private readonly sink: ObserverSink,
    private readonly ids: TurnIds,
  ) {
    this.active = OBSERVER_EVENTS.some((event) => sink.has(event));
  }

  /**
   * Ids only the host knows (its task id, the model, its provider, the subagent calling), on
   * every event from now on.
   */
  identify(ids: {
    task_id?: string;
    model?: string | undefined;
    provider?: string | undefined;
    agent_id?: string | undefined;
    agent_type?: string | undefined;
  }): this {
    if (ids.task_id !== undefined) this.ids.task_id = ids.task_id;
    if (ids.model !== undefined) this.ids.model = ids.model;
    if (ids.provider !== undefined) this.ids.provider = ids.provider;
    if (ids.agent_id !== undefined) this.ids.agent_id = ids.agent_id;
    if (ids.agent_type !== undefined) this.ids.agent_type = ids.agent_type;
    return this;
  }

  /**
   * The telemetry of a nested agent of this turn (a subagent a tool started in-process): the same
   * observers and ids, plus `agent_id` / `agent_type`, with its own model requests.
   */
  forAgent(agent: { id: string; type?: string | undefined }): TurnTelemetry {
    const { agent_id: _id, agent_type: _type, ...ids } = this.ids;
    return new TurnTelemetry(this.sink, {
      ...ids,
      agent_id: agent.id,
      ...(agent.type === undefined ? {} : { agent_type: agent.type }),
    });
  }

  #emit(event: ObserverEvent, build: () => Record<string, unknown>): void {
    if (!this.sink.has(event)) return;
    this.sink.emit(event, Object.assign(build(), this.ids));
  }

  /**
   * At the start of each `runConversation` call, paired with `sessionEnd` (as the agent does).
   * Without `isNewSession` (a host that cannot tell), the field is left out.
   */
  sessionStart(isNewSession?: boolean): void {
    this.#emit('on_session_start', () =>
      isNewSession === undefined ? {} : { is_new_session: isNewSession },
    );
  }

  sessionEnd(completed: boolean, interrupted: boolean, reason: string): void {
    this.#emit('on_session_end', () => ({ completed, interrupted, reason }));
  }

  /** `senderId`: who wrote the message, when the host knows (`sender_id`). */
  preLlm(userMessage: string, history: readonly ChatMessage[], senderId?: string): void {
    this.#emit('pre_llm_call', () => ({
      user_message: sanitize(userMessage),
      conversation_history: sanitize(history),
      is_first_turn: history.length === 0,
      ...(senderId === undefined ? {} : { sender_id: sanitize(senderId) }),
    }));
  }

  /**
   * `history`: the conversation after the turn, given only when the host was asked to capture
   * it (`conversation_history` is the largest field there is).
   */
  postLlm(userMessage: string, response: string, history?: readonly ChatMessage[]): void {
    this.#emit('post_llm_call', () => ({
      user_message: sanitize(userMessage),
      assistant_response: sanitize(response),
      ...(history === undefined ? {} : { conversation_history: sanitize(history) }),
    }));
  }

  /** `runtime`: where the request goes, as far as the host knows (a `ModelClient` is one). */
  preApi(request: ObservedRequest, runtime?: ApiRuntime): ApiAttempt {
    if (!this.active) return UNOBSERVED_ATTEMPT;
    const attempt: ApiAttempt = {
      id: randomUUID(),
      count: ++this.#apiCalls,
      startedAt: Date.now(),
      request,
      ...(runtime === undefined ? {} : { runtime }),
    };
    this.attempt = attempt;
    this.#emit('pre_api_request', () => {
      const chars = requestChars(request);
      return {
        ...apiIds(attempt),
        message_count: request.messages.length,
        tool_count: request.tools.length,
        request_char_count: chars,
        // The usual rough measure, about four characters a token: no tokenizer is at hand.
        approx_input_tokens: Math.ceil(chars / 4),
        ...(attempt.runtime?.maxTokens === undefined
          ? {}
          : { max_tokens: attempt.runtime.maxTokens }),
        started_at: attempt.startedAt,
        request: sanitize(request),
      };
    });
    return attempt;
  }

  postApi(attempt: ApiAttempt, response: ObservedResponse): void {
    this.#failuresInARow = 0;
    this.#emit('post_api_request', () => {
      const endedAt = Date.now();
      const toolCalls = response.toolCalls?.length ?? 0;
      return {
        ...apiIds(attempt),
        started_at: attempt.startedAt,
        ended_at: endedAt,
        api_duration: endedAt - attempt.startedAt,
        finish_reason: toolCalls > 0 ? 'tool_calls' : 'stop',
        message_count: attempt.request.messages.length,
        ...(typeof response.model === 'string' ? { response_model: response.model } : {}),
        assistant_content_chars: response.content?.length ?? 0,
        assistant_tool_call_count: toolCalls,
        ...(response.usage === undefined ? {} : { usage: sanitize(response.usage) }),
        response: sanitize(response),
        assistant_message: sanitize({
          role: 'assistant',
          content: response.content ?? '',
          ...(toolCalls > 0 ? { tool_calls: response.toolCalls } : {}),
        }),
      };
    });
  }

  /**
   * `retry_count` is the error's own when it carries one, else the failed requests of this turn
   * just before it (a host that tries again after a failure, as the AI SDK does, retries).
   */
  apiError(attempt: ApiAttempt, error: unknown): void {
    const earlierFailures = this.#failuresInARow++;
    this.#emit('api_request_error', () => {
      const endedAt = Date.now();
      return {
        ...apiIds(attempt),
        started_at: attempt.startedAt,
        ended_at: endedAt,
        api_duration: endedAt - attempt.startedAt,
        retry_count: earlierFailures,
        ...apiErrorFields(error),
        error: sanitize(thrownErrorOf(error)),
        request: sanitize(attempt.request),
      };
    });
  }

  /** `attempt`: the model request that asked for the call, when the host made it. */
  preTool(call: ToolCall, attempt?: ApiAttempt): void {
    this.#emit('pre_tool_call', () => ({
      ...(attempt ? apiIds(attempt) : {}),
      tool_name: call.name,
      tool_call_id: call.id,
      args: sanitize(call.arguments),
    }));
  }

  /** `durationMs` is left out by a host that did not see the tool run (a command hook). */
  postTool(
    call: ToolCall,
    attempt: ApiAttempt | undefined,
    outcome: { status: ToolStatus; result: string; durationMs?: number; error?: unknown },
  ): void {
    this.#emit('post_tool_call', () => ({
      ...(attempt ? apiIds(attempt) : {}),
      tool_name: call.name,
      tool_call_id: call.id,
      status: outcome.status,
      ...(outcome.durationMs === undefined ? {} : { duration_ms: outcome.durationMs }),
      result: sanitize(outcome.result),
      // A tool's error is read as a model's is: without a getter or a proxy able to throw here.
      ...(outcome.error === undefined ? {} : toolErrorFields(thrownErrorOf(outcome.error))),
    }));
  }

  /**
   * `pre_approval_request`: an ask is about to be put to a person. Returns what the answer's
   * event needs, or nothing when nobody observes `post_approval_response` (no clock is read).
   */
  approvalRequested(asked: AskedCall): PendingApproval | undefined {
    const attempt = this.attempt;
    this.#emit('pre_approval_request', () => ({
      ...(attempt ? apiIds(attempt) : {}),
      ...requestFields(asked),
    }));
    if (!this.sink.has('post_approval_response')) return undefined;
    return pendingOf(asked, this.ids.turn_id, Date.now());
  }

  /** `post_approval_response`: the answer to the ask `pending` was kept for, if it was kept. */
  approvalAnswered(pending: PendingApproval | undefined, answer: ApprovalAnswer): void {
    if (pending === undefined) return;
    this.#emit('post_approval_response', () => responseFields(pending, answer, Date.now()));
  }

  /**
   * `subagent_start`: the turn's agent delegated to a subagent. `parent_turn_id` is this turn: a
   * subagent's calls belong to the turn that started it. In-process, it names the model request
   * whose tool call started it (`api_request_id`), as a tool call's events do.
   */
  subagentStarted(started: StartedSubagent): void {
    const attempt = this.attempt;
    this.#emit('subagent_start', () => ({
      ...(attempt ? apiIds(attempt) : {}),
      ...subagentStartFields(started),
      parent_turn_id: this.ids.turn_id,
    }));
  }

  /** `subagent_stop`: a subagent of this turn returned, failed or was stopped. */
  subagentStopped(stopped: StoppedSubagent): void {
    this.#emit('subagent_stop', () => ({
      ...subagentStopFields(stopped),
      parent_turn_id: this.ids.turn_id,
    }));
  }

  /**
   * A chain outcome that was not a plain pass: who rewrote, injected, blocked or failed. A tool
   * call's decision names the call and the model request that asked for it.
   */
  decision(
    hook: HookName,
    outcome: ChainOutcome<unknown>,
    toolCall?: { toolName: string; toolCallId?: string | undefined },
    agent?: { id: string; type?: string | undefined },
  ): void {
    if (!this.sink.has('hook_decision')) return;
    // A shadowed handler's decision is recorded on an entry that passed: still a decision to report.
    if (
      !outcome.blocked &&
      !outcome.changed &&
      outcome.trace.every((e) => e.action === 'pass' && e.shadow === undefined)
    ) {
      return;
    }
    // A subagent run in-process makes its requests through telemetry of its own (`forAgent`):
    // the turn's last request is not the one that asked for its call.
    const attempt =
      toolCall === undefined || (agent !== undefined && agent.id !== this.ids.agent_id)
        ? undefined
        : this.attempt;
    this.#emit('hook_decision', () => ({
      ...(attempt ? apiIds(attempt) : {}),
      ...(toolCall
        ? { tool_call_id: toolCall.toolCallId ?? '', tool_name: toolCall.toolName }
        : {}),
      // A subagent's decision names it, as its other events do (a host's ids win where it set them).
      ...(agent === undefined
        ? {}
        : { agent_id: agent.id, ...(agent.type === undefined ? {} : { agent_type: agent.type }) }),
      hook,
      blocked: outcome.blocked,
      ...(outcome.blocked
        ? { blocked_by: outcome.blockedBy, message: sanitize(outcome.message) }
        : {}),
      ...(!outcome.blocked && outcome.ask !== undefined
        ? { ask: { message: sanitize(outcome.ask.message), asked_by: outcome.ask.askedBy } }
        : {}),
      ...(hook === 'before_llm_call' ? restrictionsOf(outcome.value) : {}),
      changed: outcome.changed,
      decided_by: [
        ...new Set(outcome.trace.filter((e) => e.action !== 'pass').map((e) => e.extension)),
      ],
      ...shadowFields(outcome.trace),
      trace: sanitize(outcome.trace),
      metadata: sanitize(outcome.metadata),
    }));
  }
}

/**
 * What handlers in shadow mode decided and the chain did not apply (docs/chain-semantics.md, Shadow
 * mode): `would_block` when one of them would have blocked the call, and each decision with its
 * extension. `hermes extensions report` reads these from the audit log.
 */
function shadowFields(trace: readonly TraceEntry[]): Record<string, unknown> {
  const shadowed = trace.filter((e) => e.shadow !== undefined);
  if (shadowed.length === 0) return {};
  return {
    would_block: shadowed.some((e) => e.shadow?.action === 'block'),
    shadow: shadowed.map((e) => ({
      extension: e.extension,
      action: e.shadow?.action,
      ...(e.shadow?.message === undefined ? {} : { message: sanitize(e.shadow.message) }),
    })),
  };
}

function toolErrorFields({ type, message }: { type: string; message: string }) {
  return { error_type: type, error_message: sanitize(message) };
}

/** A request's `restrictTools`, as hook_decision reports them: the tools left and who hid which. */
function restrictionsOf(request: unknown): Record<string, unknown> {
  const { tools, toolRestrictions } = request as LlmRequest;
  if (toolRestrictions === undefined) return {};
  return {
    tools,
    tool_restrictions: toolRestrictions.map((r) => ({
      extension: r.extension,
      ...(r.reason === undefined ? {} : { reason: sanitize(r.reason) }),
      hidden: r.hidden,
    })),
  };
}
