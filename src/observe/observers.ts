import { describeError } from '../chain/errors.js';
import type { Logger } from '../log/logger.js';
import {
  type ObserverEvent,
  type ObserverHandler,
  type ObserverPayload,
  TELEMETRY_SCHEMA_VERSION,
} from './events.js';

/** Where the framework's hosts send observer events (`turn-telemetry.ts`): `ObserverIndex`. */
export interface ObserverSink {
  has(event: ObserverEvent): boolean;
  /** Takes the fields object over (a fresh one per event). */
  emit(event: ObserverEvent, fields: Record<string, unknown>): void;
}

/** The sink of a trial's turn (`TurnOptions.trial`): nobody hears of it. */
export const NO_OBSERVERS: ObserverSink = Object.freeze({
  has: () => false,
  emit: () => {},
});

/** An observer as registered: which event (or every one, `*`), by whom. */
export interface RegisteredObserver {
  readonly extension: string;
  readonly event: ObserverEvent | '*';
  readonly fn: ObserverHandler;
  readonly log: Logger;
  /** Set once its first failure has been logged. */
  failed: boolean;
}

/**
 * The observers of a runtime by event, fixed when the runtime is built. Observers are fail-open
 * and never slow the agent: what they return is ignored, a promise is not awaited (its rejection
 * is logged like a throw), and each observer's first failure is logged once. The promises still
 * unsettled are kept, so `runtime.close()` can wait for them; an observer that returns nothing
 * costs nothing for it.
 */
export class ObserverIndex implements ObserverSink {
  readonly #byEvent = new Map<ObserverEvent, RegisteredObserver[]>();
  #all: RegisteredObserver[];
  /** Observer promises not yet settled, and whose they are (to name it if close stops waiting). */
  readonly #pending = new Map<Promise<void>, RegisteredObserver>();

  constructor(observers: readonly RegisteredObserver[]) {
    this.#all = observers.filter((o) => o.event === '*');
    for (const observer of observers) {
      if (observer.event === '*') continue;
      const list = this.#byEvent.get(observer.event) ?? [];
      list.push(observer);
      this.#byEvent.set(observer.event, list);
    }
  }

  has(event: ObserverEvent): boolean {
    return this.#all.length > 0 || this.#byEvent.has(event);
  }

  emit(event: ObserverEvent, fields: Record<string, unknown>): void {
    const specific = this.#byEvent.get(event);
    if (specific === undefined && this.#all.length === 0) return;
    // The fields object is taken over, not copied: every caller builds a fresh one per event.
    fields.event = event;
    fields.telemetry_schema_version = TELEMETRY_SCHEMA_VERSION;
    const payload = Object.freeze(fields) as ObserverPayload;
    if (specific) for (const observer of specific) this.#track(observer, notify(observer, payload));
    for (const observer of this.#all) this.#track(observer, notify(observer, payload));
  }

  /**
   * No event reaches an observer from now on (`has` says no, `emit` does nothing); resolves when
   * the observers' promises still pending have settled, or after `timeoutMs`, naming in each
   * observer's log the ones it stopped waiting for. Never rejects.
   */
  async close(timeoutMs: number): Promise<void> {
    this.#byEvent.clear();
    this.#all = [];
    if (this.#pending.size === 0) return;
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(true), timeoutMs);
    });
    const settled = Promise.all(this.#pending.keys()).then(() => false);
    const late = await Promise.race([settled, timedOut]).finally(() => clearTimeout(timer));
    if (!late) return;
    for (const observer of new Set(this.#pending.values())) {
      warn(
        observer,
        `observer of ${observer.event === '*' ? 'every event' : observer.event} was still running when the runtime closed (waited ${timeoutMs} ms); what it had not finished may be lost`,
      );
    }
  }

  /**
   * Resolves once the observers' promises pending now have settled, or after `timeoutMs`; the
   * observers stay open. Never rejects.
   */
  async settled(timeoutMs: number): Promise<void> {
    if (this.#pending.size === 0) return;
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, timeoutMs);
    });
    await Promise.race([Promise.all(this.#pending.keys()), timedOut]).finally(() =>
      clearTimeout(timer),
    );
  }

  #track(observer: RegisteredObserver, pending: Promise<void> | undefined): void {
    if (pending === undefined) return;
    this.#pending.set(pending, observer);
    void pending.then(() => this.#pending.delete(pending));
  }
}

/**
 * Calls one observer. Nothing it throws, returns or rejects with gets out: what it returns is read
 * once (its `then`, which may be a getter that throws), a rejection is caught, and a failure is
 * described by `describeError`, which cannot throw whatever the value. A promise it returns comes
 * back as one that settles with it and never rejects, for `close()` to wait on.
 */
function notify(observer: RegisteredObserver, payload: ObserverPayload): Promise<void> | undefined {
  try {
    const result = observer.fn(payload);
    if (result !== null && typeof result === 'object') {
      const then = (result as PromiseLike<unknown>).then;
      if (typeof then === 'function') {
        return new Promise<void>((settle) => {
          try {
            then.call(
              result,
              () => settle(),
              (error: unknown) => {
                settle();
                failed(observer, payload.event, error);
              },
            );
          } catch (error) {
            settle();
            failed(observer, payload.event, error);
          }
        });
      }
    }
  } catch (error) {
    failed(observer, payload.event, error);
  }
  return undefined;
}

function failed(observer: RegisteredObserver, event: string, error: unknown): void {
  if (observer.failed) return;
  observer.failed = true;
  const reason = describeError(error);
  try {
    observer.log.warn(
      `observer of ${observer.event === '*' ? 'every event' : event} failed (${reason}); ignored, and further failures of it are not logged`,
    );
  } catch {
    // A logger that throws changes nothing either.
  }
}

function warn(observer: RegisteredObserver, message: string): void {
  try {
    observer.log.warn(message);
  } catch {
    // A logger that throws changes nothing either.
  }
}
