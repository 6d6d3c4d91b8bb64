import { context, type Span, type Tracer, trace } from '@opentelemetry/api';
import type { ObserverPayload } from 'hermes-extensions';
import { TurnSummary } from './turn-summary.js';

type Attributes = Record<string, string | number | boolean>;

/** A provider request's span; an ended one stays the parent of the tool calls it asked for. */
interface ApiSpan {
  span: Span;
  turn: string;
  open: boolean;
}

/** The spans still open, and each turn's summary, keyed by the ids the events carry. */
export class OpenSpans {
  /** By turn id. */
  readonly sessions = new Map<string, Span>();
  /** By turn id. */
  readonly llms = new Map<string, Span>();
  /** By provider request id. */
  readonly apis = new Map<string, ApiSpan>();
  /** By `toolKey`. */
  readonly tools = new Map<string, Span>();
  /** By session and tool call id (approval-spans.ts): an answer may come in a later turn. */
  readonly approvals = new Map<string, Span>();
  /** By session and subagent id (subagent-spans.ts). */
  readonly subagents = new Map<string, Span>();
  readonly #summaries = new Map<string, TurnSummary>();

  constructor(private readonly tracer: Tracer) {}

  /** A span under `parent`, or a trace's root without one. */
  start(name: string, parent: Span | undefined, attributes: Attributes): Span {
    return this.tracer.startSpan(
      name,
      { attributes },
      parent ? trace.setSpan(context.active(), parent) : undefined,
    );
  }

  /** The span a turn's request (or an error without one) goes under: its llm span, else its session. */
  turnSpan(turn: string): Span | undefined {
    return this.llms.get(turn) ?? this.sessions.get(turn);
  }

  /**
   * The span an event's request goes under: the subagent's delegation span when a subagent made
   * it and the span is open, else the turn's.
   */
  agentSpan(p: ObserverPayload): Span | undefined {
    const subagent =
      typeof p.agent_id === 'string'
        ? this.subagents.get(`${p.session_id}:${p.agent_id}`)
        : undefined;
    return subagent ?? this.turnSpan(turnOf(p));
  }

  summaryOf(turn: string): TurnSummary {
    let summary = this.#summaries.get(turn);
    if (summary === undefined) {
      summary = new TurnSummary();
      this.#summaries.set(turn, summary);
    }
    return summary;
  }

  /** The turn's summary, forgotten: the turn is over. */
  takeSummary(turn: string): TurnSummary {
    const summary = this.summaryOf(turn);
    this.#summaries.delete(turn);
    return summary;
  }

  /** A turn that ended early (blocked, cancelled, failed) still closes its tool and API spans. */
  endToolsAndRequests(turn: string): void {
    for (const [key, span] of this.tools) {
      if (!key.startsWith(`${turn}:`)) continue;
      span.end();
      this.tools.delete(key);
    }
    for (const [id, request] of this.apis) {
      if (request.turn !== turn) continue;
      if (request.open) request.span.end();
      this.apis.delete(id);
    }
  }

  /** Ends every span still open (the host is closing) and forgets them. */
  endAll(): void {
    // An ask whose answer never came (a command hook's: the agent asked) ends without a choice.
    for (const span of this.approvals.values()) span.end();
    for (const span of this.subagents.values()) span.end();
    for (const span of this.tools.values()) span.end();
    for (const request of this.apis.values()) if (request.open) request.span.end();
    for (const span of this.llms.values()) span.end();
    for (const span of this.sessions.values()) span.end();
    this.tools.clear();
    this.approvals.clear();
    this.subagents.clear();
    this.#summaries.clear();
    this.apis.clear();
    this.llms.clear();
    this.sessions.clear();
  }
}

/** A tool call's key: its turn and its id (or, from a host that gives none, its name). */
export const toolKey = (p: ObserverPayload) => `${p.turn_id}:${p.tool_call_id ?? p.tool_name}`;

export const turnOf = (p: ObserverPayload) => String(p.turn_id);
export const modelOf = (p: ObserverPayload) => String(p.model ?? 'model');

/** `llm.provider`, when the event names one. */
export const providerOf = (p: ObserverPayload): Record<string, string> =>
  typeof p.provider === 'string' ? { 'llm.provider': p.provider } : {};
