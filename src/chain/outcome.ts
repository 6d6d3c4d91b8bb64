import type { Metadata } from '../hooks/results.js';

export interface TraceEntry {
  extension: string;
  /** The action the handler took: `pass`, `rewrite`, `block`, `inject_*`, or `error` (failed, fail-open). */
  action: string;
  durationMs: number;
  /** Why the handler failed, when it did. */
  error?: string;
}

/** What one run of a chain decided (DESIGN §4). */
export interface ChainOutcome<V> {
  /** A handler blocked; the handlers after it did not run. */
  blocked: boolean;
  message?: string;
  blockedBy?: string;
  /** Some handler rewrote or injected. */
  changed: boolean;
  /** The final value: the host's own input when nothing changed, else a read-only new value. */
  value: V;
  metadata: Metadata;
  trace: TraceEntry[];
}
