/** Lines kept for one session (or for the runtime) until told; past them, only a count. */
const MAX_LINES = 20;
/** Sessions (and runtimes) with lines waiting; past them, the oldest are dropped (the log has them). */
const MAX_SESSIONS = 256;

interface Waiting {
  lines: string[];
  dropped: number;
}

/**
 * Warnings a runtime worker logged while no event of theirs was being answered — an observer
 * that failed after the event, an exporter's failure, an audit log that could not be written —
 * kept by the daemon to be told once, with the next answer: of the session whose event's work
 * logged them, or, for those of no session's work, of any session the runtime (its key in
 * runtime-workers.ts) serves. In the hook process such a line reaches the same hook's stderr after
 * its answer; in the daemon that answer has gone, so the next one carries it. Kept here, not in
 * the worker, so a worker replaced meanwhile (a file its load read changed) loses none. Every
 * line is in the daemon's log as well.
 */
export class LateNotices {
  readonly #bySession = new Map<string, Waiting>();
  readonly #byRuntime = new Map<string, Waiting>();

  /** A warning logged by runtime `runtime`, by the work of an event of `session` if known. */
  add(runtime: string, session: string | undefined, message: string): void {
    if (session === undefined) keep(this.#byRuntime, runtime, message);
    else keep(this.#bySession, session, message);
  }

  /** Whether nothing waits to be told. */
  get empty(): boolean {
    return this.#bySession.size + this.#byRuntime.size === 0;
  }

  /**
   * What to add to the stderr of an answer to `session` by runtime `runtime` (empty when nothing
   * waits): the session's lines, then the runtime's; told once, then forgotten.
   */
  take(runtime: string, session: string | undefined, logPath: string): string {
    const own = session === undefined ? undefined : this.#bySession.get(session);
    if (session !== undefined) this.#bySession.delete(session);
    const ofRuntime = this.#byRuntime.get(runtime);
    this.#byRuntime.delete(runtime);
    return (
      told(own, `logged after an earlier answer of this session (also in ${logPath})`) +
      told(ofRuntime, `logged by the extensions outside any answer (also in ${logPath})`)
    );
  }
}

function keep(waiting: Map<string, Waiting>, key: string, message: string): void {
  let lines = waiting.get(key);
  if (lines === undefined) {
    lines = { lines: [], dropped: 0 };
    waiting.set(key, lines);
    for (const oldest of waiting.keys()) {
      if (waiting.size <= MAX_SESSIONS) break;
      waiting.delete(oldest);
    }
  }
  if (lines.lines.length < MAX_LINES) lines.lines.push(message);
  else lines.dropped++;
}

function told(waiting: Waiting | undefined, heading: string): string {
  if (waiting === undefined) return '';
  const more = waiting.dropped > 0 ? [`… and ${waiting.dropped} more line(s) in the log`] : [];
  return `hermes: ${heading}:\n${[...waiting.lines, ...more].join('\n')}\n`;
}
