import type { Metadata } from '../hooks/results.js';

export const EMPTY_METADATA: Metadata = Object.freeze({});

export interface TraceEntry {
  extension: string;
  /** The action the handler took: `pass`, `rewrite`, `block`, `inject_*`, or `error` (failed, fail-open). */
  action: string;
  durationMs: number;
  /** Only on the entries of validators (handlers registered with `phase: 'validate'`). */
  phase?: 'validate';
  /** Why the handler failed, when it did. */
  error?: string;
}

/** What one run of a chain decided (README, A host). */
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

/** The outcome of a chain with no handler to run: the input as it came, nothing recorded. */
export function unchangedOutcome<V>(value: V): ChainOutcome<V> {
  return { blocked: false, changed: false, value, metadata: EMPTY_METADATA, trace: [] };
}
