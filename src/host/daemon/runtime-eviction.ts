/**
 * How long a runtime may go without an event before the daemon lets it go
 * (`HERMES_DAEMON_RUNTIME_IDLE_MS`): its project's next event loads it again.
 */
export const RUNTIME_IDLE_MS = 5 * 60_000;
/**
 * The daemon's memory cap, its resident memory in MB (`HERMES_DAEMON_MAX_MB`): past it, idle
 * runtimes are let go, the least recently used first.
 */
export const MAX_RSS_MB = 300;

export interface EvictionLimits {
  /** How long a runtime may stay idle (ms). */
  idleMs: number;
  /** The resident memory (bytes) past which idle runtimes are let go. */
  maxRssBytes: number;
}

/** What the eviction needs of a runtime (a WorkerHandle). */
export interface Evictable {
  /** Events being answered by it now: a runtime in use is never let go. */
  readonly users: number;
}

export interface EvictionHost<W extends Evictable> {
  /** The runtimes kept, least recently used first. */
  live(): Iterable<W>;
  /** Lets it go (it ends once idle: it is idle when chosen), `why` for the daemon's log. */
  letGo(worker: W, why: string): void;
  /** Whether runtimes let go are still ending: their memory is not yet given back. */
  ending(): boolean;
  /** The daemon's resident memory now (bytes). */
  rss(): number;
}

/**
 * When the hook daemon lets a runtime go (runtime-workers.ts): once it has gone `idleMs` without
 * an event, and, while the daemon's resident memory is over `maxRssBytes`, the least recently used
 * idle one — one at a time, the next once the last has ended and its memory is back, so a cap
 * measured before a thread's memory is returned does not empty the daemon. Never a runtime
 * answering an event, and never the most recently used one under the cap: a daemon whose own
 * memory is past the cap still keeps the project it is working for warm rather than loading it
 * for every event. A runtime let go loses nothing a call depends on: what outlives an event —
 * a turn's state, trust, approvals — is on disk, as it must be for the hook process that answers
 * when no daemon does.
 */
export class RuntimeEviction<W extends Evictable> {
  readonly #limits: EvictionLimits;
  readonly #host: EvictionHost<W>;
  /** When each idle runtime answered its last event (epoch ms). */
  readonly #idleSince = new Map<W, number>();
  #timer: ReturnType<typeof setTimeout> | undefined;
  #timerAt = Number.POSITIVE_INFINITY;

  constructor(limits: EvictionLimits, host: EvictionHost<W>) {
    this.#limits = limits;
    this.#host = host;
  }

  /** It answers nothing now: its idle time starts (again). */
  idle(worker: W): void {
    if (worker.users > 0) return;
    this.#idleSince.set(worker, Date.now());
    this.#arm(Date.now() + this.#limits.idleMs);
  }

  /** It is answering an event, or has ended: it is not idle. */
  busy(worker: W): void {
    this.#idleSince.delete(worker);
  }

  /** How long it has been idle (ms); undefined while it answers an event. */
  idleFor(worker: W): number | undefined {
    const since = this.#idleSince.get(worker);
    return since === undefined || worker.users > 0 ? undefined : Date.now() - since;
  }

  /** Lets go the runtimes idle for `idleMs`, then one idle runtime if memory is over the cap. */
  check(): void {
    const now = Date.now();
    let next = Number.POSITIVE_INFINITY;
    for (const worker of [...this.#host.live()]) {
      const since = this.#idleSince.get(worker);
      if (since === undefined || worker.users > 0) continue;
      const end = since + this.#limits.idleMs;
      if (end <= now) {
        this.#idleSince.delete(worker);
        this.#host.letGo(worker, `idle for ${Math.round((now - since) / 1000)} s`);
      } else next = Math.min(next, end);
    }
    this.#arm(next);
    this.#overCap();
  }

  /** Ends the timer (the daemon is stopping). */
  stop(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#timerAt = Number.POSITIVE_INFINITY;
  }

  #overCap(): void {
    if (this.#host.ending()) return;
    const rss = this.#host.rss();
    if (rss <= this.#limits.maxRssBytes) return;
    const live = [...this.#host.live()];
    // Least recently used first; the most recently used stays. Idle: it has answered its last
    // event and been given no other since (a runtime just chosen for an event is not, even
    // before its event is counted in `users`).
    const chosen = live
      .slice(0, -1)
      .find((worker) => worker.users === 0 && this.#idleSince.has(worker));
    if (chosen === undefined) return;
    this.#idleSince.delete(chosen);
    const mb = (bytes: number) => Math.round(bytes / 1_048_576);
    this.#host.letGo(
      chosen,
      `the daemon's memory (${mb(rss)} MB) is over its cap of ${mb(this.#limits.maxRssBytes)} MB (HERMES_DAEMON_MAX_MB), and it was the least recently used idle runtime`,
    );
  }

  /** One timer, at the earliest time an idle runtime is due. */
  #arm(at: number): void {
    if (!Number.isFinite(at) || (this.#timer !== undefined && this.#timerAt <= at)) return;
    clearTimeout(this.#timer);
    this.#timerAt = at;
    this.#timer = setTimeout(
      () => {
        this.#timer = undefined;
        this.#timerAt = Number.POSITIVE_INFINITY;
        this.check();
      },
      Math.max(0, at - Date.now()),
    );
    // The daemon's own idle exit (server.ts) decides when it ends, not this timer.
    this.#timer.unref();
  }
}
