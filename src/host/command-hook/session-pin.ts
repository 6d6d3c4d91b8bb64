import { readFileSync, statSync, utimesSync } from 'node:fs';
import { TurnStoreError } from './turn-store-error.js';

/**
 * Where a session works, fixed at its start (session-root.ts): the folder the agent reported,
 * and the project root found from it then.
 */
export interface SessionPin {
  from: string;
  root: string;
}

/** A pin read this long after it was last touched is touched again (the sweep goes by age). */
const TOUCH_AFTER_MS = 60 * 60 * 1000;

/** The pin stored in `file`, touched so the sweep leaves it while the session goes on; none if none. */
export function readPin(file: string): SessionPin | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new TurnStoreError(`cannot read the session's root ${file}: ${firstLine(error)}`);
  }
  let pin: unknown;
  try {
    pin = JSON.parse(text);
  } catch {
    pin = undefined;
  }
  if (!isPin(pin)) {
    // Never pinned anew from the event: a pin that moves is what it is there to stop.
    throw new TurnStoreError(
      `the session's root ${file} is corrupt; delete it and start a new session`,
    );
  }
  try {
    if (Date.now() - statSync(file).mtimeMs > TOUCH_AFTER_MS)
      utimesSync(file, new Date(), new Date());
  } catch {
    // Only the sweep's clock: a pin not touched now is read all the same.
  }
  return pin;
}

function isPin(value: unknown): value is SessionPin {
  if (value === null || typeof value !== 'object') return false;
  const { from, root } = value as Record<string, unknown>;
  return typeof from === 'string' && typeof root === 'string';
}

function firstLine(error: unknown): string {
  return String((error as Error)?.message ?? error).split('\n')[0] as string;
}
