/**
 * Who starts an event the daemon sent to a runtime worker: the worker, when it takes it from its
 * port, or nobody, when the daemon withdrew it first. One cell of shared memory per event, set
 * once by whichever side comes first (an atomic compare-and-swap), so the daemon knows, without
 * waiting for a message a stuck thread would never send, that an event was never started — and
 * only such an event is sent to another runtime: one a worker took may have been decided, and is
 * never decided again.
 */
const OPEN = 0;
const TAKEN = 1;
const WITHDRAWN = 2;

/** The cell of one event (shared with the worker through postMessage). */
export type Claim = Int32Array;

export function newClaim(): Claim {
  return new Int32Array(new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT));
}

/** The worker's side: true when it may start the event (the daemon has not withdrawn it). */
export function takeClaim(claim: Claim): boolean {
  return Atomics.compareExchange(claim, 0, OPEN, TAKEN) === OPEN;
}

/** The daemon's side: true when the event was withdrawn before the worker took it. */
export function withdrawClaim(claim: Claim): boolean {
  return Atomics.compareExchange(claim, 0, OPEN, WITHDRAWN) === OPEN;
}
