import { turnOf } from './open-spans.js';
import type { EventHandlers } from './recorder.js';
import { finalStatus } from './turn-summary.js';

/** `session.{kind}`: the root of a turn's trace; it ends with the turn summary. */
export const sessionSpans: EventHandlers = {
  on_session_start(p, { spans }) {
    const turn = turnOf(p);
    const kind = String(p.platform ?? 'agent');
    spans.sessions.set(
      turn,
      spans.start(`session.${kind}`, undefined, {
        'hermes.session.kind': kind,
        'hermes.session.id': String(p.session_id),
        'session.id': String(p.session_id),
        'hermes.turn.id': turn,
      }),
    );
  },

  on_session_end(p, { spans, metrics, flush }) {
    const turn = turnOf(p);
    spans.endToolsAndRequests(turn);
    const status = finalStatus(p.completed, p.interrupted);
    const summary = spans.takeSummary(turn).attributes(status);
    metrics.sessions.add(1, { kind: String(p.platform ?? 'agent'), final_status: status });
    const session = spans.sessions.get(turn);
    spans.sessions.delete(turn);
    const llm = spans.llms.get(turn);
    spans.llms.delete(turn);
    // Without a session span (its start was not seen), the turn's llm span is the root.
    (session ?? llm)?.setAttributes({
      ...summary,
      'hermes.turn.completed': Boolean(p.completed),
      'hermes.turn.end_reason': String(p.reason),
    });
    llm?.end();
    session?.end();
    flush();
  },
};
