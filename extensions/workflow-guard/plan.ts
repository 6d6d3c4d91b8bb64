import { closeSync, constants, fstatSync, openSync, readSync, statSync } from 'node:fs';
import { resolve } from 'node:path';

/** How much of the plan is read to see that it says something. */
const READ_BYTES = 64 * 1024;
/**
 * Characters that show nothing: white space of every kind, controls, format characters
 * (zero-width spaces and joiners, the byte order mark, bidi marks), combining marks on their
 * own, and the blank letters that fonts draw as nothing (Hangul fillers, the braille blank).
 */
const INVISIBLE = /[\s\p{Cc}\p{Cf}\p{Z}\p{M}\u115F\u1160\u3164\uFFA0\u2800\u180E]/gu;

/**
 * A valid plan is a regular file at `planPath` (relative to the project root) with something a
 * person can read in it: a file of spaces, byte order marks or zero-width characters is not a
 * plan. Read every time it matters, so a plan written earlier in the turn counts at once.
 */
export function hasValidPlan(projectRoot: string, planPath: string): boolean {
  const file = resolve(projectRoot, planPath);
  // Checked on every hook call: a missing plan must not cost an exception each time. Only a
  // regular file: reading a FIFO or a device would hang or never end.
  if (!statSync(file, { throwIfNoEntry: false })?.isFile()) return false;
  let text: string;
  try {
    // Not blocking on a FIFO that took the file's place since the check.
    const fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
    try {
      if (!fstatSync(fd).isFile()) return false;
      const buffer = Buffer.alloc(READ_BYTES);
      text = buffer.toString('utf8', 0, readSync(fd, buffer, 0, READ_BYTES, 0));
    } finally {
      closeSync(fd);
    }
  } catch {
    return false;
  }
  return text.replace(INVISIBLE, '').length > 0;
}
