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
  return readPlan(projectRoot, planPath) !== undefined;
}

/** The text of a valid plan (its first 64 KiB), or undefined when there is none. */
export function readPlan(projectRoot: string, planPath: string): string | undefined {
  const file = resolve(projectRoot, planPath);
  // Checked on every hook call: a missing plan must not cost an exception each time. Only a
  // regular file: reading a FIFO or a device would hang or never end.
  if (!statSync(file, { throwIfNoEntry: false })?.isFile()) return undefined;
  let text: string;
  try {
    // Not blocking on a FIFO that took the file's place since the check.
    const fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
    try {
      if (!fstatSync(fd).isFile()) return undefined;
      const buffer = Buffer.alloc(READ_BYTES);
      text = buffer.toString('utf8', 0, readSync(fd, buffer, 0, READ_BYTES, 0));
    } finally {
      closeSync(fd);
    }
  } catch {
    return undefined;
  }
  return text.replace(INVISIBLE, '').length > 0 ? text : undefined;
}

/** Characters a path name is made of: a mention must not run on into more of them. */
const NAME_CHAR = /[\p{L}\p{N}_-]/u;

/**
 * Whether the plan names `folder` (`src/payments`) as a path of its own: `src/payments`,
 * `./src/payments/`, `src/payments/api.ts` count; `src/paymentsv2`, `src/payments.ts`,
 * `lib/src/payments` and `mysrc/payments` do not.
 */
export function planNames(plan: string, folder: string): boolean {
  for (let at = plan.indexOf(folder); at !== -1; at = plan.indexOf(folder, at + 1)) {
    if (startsPath(plan, at) && endsName(plan, at + folder.length)) return true;
  }
  return false;
}

function startsPath(text: string, at: number): boolean {
  const before = text.slice(0, at);
  // `./src/x`: the `./` belongs to the mention.
  const start = before.endsWith('./') ? at - 2 : at;
  const previous = text[start - 1];
  return previous === undefined || !(NAME_CHAR.test(previous) || '/.\\~$'.includes(previous));
}

function endsName(text: string, end: number): boolean {
  const next = text[end];
  if (next === undefined) return true;
  if (NAME_CHAR.test(next)) return false;
  // `src/x.ts` names a file beside the folder; `src/x.` ends a sentence.
  return !(next === '.' && NAME_CHAR.test(text[end + 1] ?? ''));
}
