import { readFileSync, statSync } from 'node:fs';
import { resolve } from 'node:path';

/**
 * A valid plan is a file at `planPath` (relative to the project root) that exists and is not
 * blank. Read every time it matters, so a plan written earlier in the turn counts at once.
 */
export function hasValidPlan(projectRoot: string, planPath: string): boolean {
  const file = resolve(projectRoot, planPath);
  // Checked on every hook call: a missing plan must not cost an exception each time.
  if (!statSync(file, { throwIfNoEntry: false })?.isFile()) return false;
  try {
    return readFileSync(file, 'utf8').trim().length > 0;
  } catch {
    return false;
  }
}
