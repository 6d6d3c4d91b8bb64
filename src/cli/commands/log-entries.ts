/** The four decisions a hook call ends in, as `hermes extensions log` names them. */
export const DECISIONS = ['block', 'ask', 'rewrite', 'pass'] as const;
export type Decision = (typeof DECISIONS)[number];

/** A shadowed handler's decision, which the chain did not apply (docs/chain-semantics.md). */
export interface ShadowNote {
  extension: string;
  action: string;
  message?: string;
}

/**
 * One decision of the audit log: a `hook_decision` line (a block, an ask, a change, or a pass
 * that only a shadowed or failing handler marked), or a tool call that ran with no handler
 * objecting (a `post_tool_call` with no decision of its own before it: a pass).
 */
export interface LogEntry {
  at: string;
  session: string;
  /** A subagent's id, on its own calls' decisions. */
  agent?: string;
  hook: string;
  tool?: string;
  decision: Decision;
  /** The extensions that decided: who blocked, who asked, who changed the call. */
  by: string[];
  /** The reason of a block or an ask. */
  message?: string;
  /** What the changers did: `rewrite`, `inject_user`, `restrict_tools`, … */
  actions?: string[];
  /** The person's answer to an ask, where the host saw it (`once`, `deny`, `timeout`, …). */
  answer?: string;
  /** A tool call that ran: its outcome (`ok`, `error`). */
  status?: string;
  shadow?: ShadowNote[];
  /** Handlers that failed and were passed over (fail-open). */
  failed?: string[];
}

export interface LogFilter {
  /** A session id, or the start of one (as the table shows it). */
  session?: string;
  tool?: string;
  decisions?: ReadonlySet<Decision>;
  /** Milliseconds: only entries at or after. */
  since?: number;
}

const text = (value: unknown): string | undefined =>
  typeof value === 'string' ? value : undefined;
const callKey = (entry: Record<string, unknown>): string | undefined => {
  const id = text(entry.tool_call_id);
  return id === undefined || id === '' ? undefined : `${text(entry.session_id) ?? ''}\u0000${id}`;
};

/**
 * The decisions among the audit log's lines, oldest first. A tool call that has a
 * `hook_decision` is that decision alone: its `post_tool_call` adds no pass. Every value is the
 * log's, which a cloned repository can commit: only strings are taken, and the caller prints them
 * through printable().
 */
export function logEntries(lines: ReadonlyArray<Record<string, unknown>>): LogEntry[] {
  const decided = new Set<string>();
  const answers = new Map<string, string>();
  for (const line of lines) {
    const key = callKey(line);
    if (key === undefined) continue;
    if (line.event === 'hook_decision' && line.hook === 'intercept_tool_call') decided.add(key);
    const choice = text(line.choice);
    if (line.event === 'post_approval_response' && choice !== undefined) answers.set(key, choice);
  }
  const entries: LogEntry[] = [];
  for (const line of lines) {
    if (line.event === 'hook_decision') {
      entries.push(decisionOf(line, answers));
    } else if (line.event === 'post_tool_call') {
      const key = callKey(line);
      const status = text(line.status);
      // A call not run was refused, and its refusal is a decision of its own.
      if (status === 'blocked' || status === 'cancelled') continue;
      if (key !== undefined && decided.has(key)) continue;
      entries.push({
        ...common(line),
        hook: 'intercept_tool_call',
        decision: 'pass',
        by: [],
        ...(status === undefined ? {} : { status }),
      });
    }
  }
  return entries;
}

function common(line: Record<string, unknown>) {
  const agent = text(line.agent_id);
  const tool = text(line.tool_name);
  return {
    at: text(line.at) ?? '',
    session: text(line.session_id) ?? '',
    ...(agent === undefined ? {} : { agent }),
    ...(tool === undefined ? {} : { tool }),
  };
}

function decisionOf(line: Record<string, unknown>, answers: Map<string, string>): LogEntry {
  const trace = Array.isArray(line.trace) ? (line.trace as unknown[]) : [];
  const steps = trace.map((step) => (step ?? {}) as Record<string, unknown>);
  const failed = [
    ...new Set(steps.filter((s) => s.action === 'error').map((s) => text(s.extension) ?? '')),
  ];
  const shadow = (Array.isArray(line.shadow) ? (line.shadow as unknown[]) : []).flatMap((item) => {
    const s = (item ?? {}) as Record<string, unknown>;
    const extension = text(s.extension);
    const action = text(s.action);
    if (extension === undefined || action === undefined) return [];
    const message = text(s.message);
    return [{ extension, action, ...(message === undefined ? {} : { message }) }];
  });
  const base = {
    ...common(line),
    hook: text(line.hook) ?? '',
    ...(shadow.length > 0 ? { shadow } : {}),
    ...(failed.length > 0 ? { failed } : {}),
  };
  const ask = (line.ask ?? {}) as Record<string, unknown>;
  if (line.blocked === true) {
    const by = text(line.blocked_by);
    const message = text(line.message);
    return {
      ...base,
      decision: 'block',
      by: by === undefined ? [] : [by],
      ...(message === undefined ? {} : { message }),
    };
  }
  if (line.ask !== undefined && line.ask !== null) {
    const by = text(ask.asked_by);
    const message = text(ask.message);
    const key = callKey(line);
    const answer = key === undefined ? undefined : answers.get(key);
    return {
      ...base,
      decision: 'ask',
      by: by === undefined ? [] : [by],
      ...(message === undefined ? {} : { message }),
      ...(answer === undefined ? {} : { answer }),
    };
  }
  if (line.changed === true) {
    const changers = steps.filter((s) => s.action !== 'pass' && s.action !== 'error');
    return {
      ...base,
      decision: 'rewrite',
      by: [...new Set(changers.map((s) => text(s.extension) ?? ''))].filter((e) => e !== ''),
      actions: [...new Set(changers.map((s) => text(s.action) ?? ''))].filter((a) => a !== ''),
    };
  }
  // Passed: only a shadowed handler (what it would have done is in `shadow`) or a failing one
  // made the line.
  return { ...base, decision: 'pass', by: [] };
}

/** The entries the filter keeps, in their order. */
export function filterEntries(entries: readonly LogEntry[], filter: LogFilter): LogEntry[] {
  return entries.filter(
    (e) =>
      (filter.session === undefined || e.session.startsWith(filter.session)) &&
      // As hermes names the tool (`bash`) or as the agent does (Claude Code's `Bash`).
      (filter.tool === undefined || e.tool?.toLowerCase() === filter.tool.toLowerCase()) &&
      (filter.decisions === undefined || filter.decisions.has(e.decision)) &&
      (filter.since === undefined || Date.parse(e.at) >= filter.since),
  );
}

/** Per decision, how many, and by whom (most first, then by name). */
export type LogSummary = Record<Decision, { count: number; by: Array<[string, number]> }>;

export function summarizeEntries(entries: readonly LogEntry[]): LogSummary {
  const summary = Object.fromEntries(
    DECISIONS.map((d) => [d, { count: 0, by: new Map<string, number>() }]),
  ) as Record<Decision, { count: number; by: Map<string, number> }>;
  for (const entry of entries) {
    const kind = summary[entry.decision];
    kind.count++;
    for (const who of entry.by) kind.by.set(who, (kind.by.get(who) ?? 0) + 1);
  }
  return Object.fromEntries(
    DECISIONS.map((d) => [
      d,
      {
        count: summary[d].count,
        by: [...summary[d].by].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])),
      },
    ]),
  ) as LogSummary;
}
