import type { ObserverPayload } from 'hermes-extensions';
import type { OtelSettings } from './config.js';
import type { Instruments } from './metrics.js';
import type { OpenSpans } from './open-spans.js';

/** What each event's handler works with. */
export interface Recorder {
  spans: OpenSpans;
  metrics: Instruments;
  settings: OtelSettings;
  /** Sends the spans ended so far, a failure logged (the end of each turn). */
  flush(): void;
}

export type EventHandlers = Partial<
  Record<ObserverPayload['event'], (p: ObserverPayload, recorder: Recorder) => void>
>;
