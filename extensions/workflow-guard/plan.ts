import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

/**
 * A valid plan is a file at `planPath` (relative to the project root) that exists and is not
 * blank. Read every time it matters, so a plan written earlier in the turn counts at once.
 */
export function hasValidPlan(projectRoot: string, planPath: string): boolean {
  try {
    return readFileSync(resolve(projectRoot, planPath), 'utf8').trim().length > 0;
  } catch {
    return false;
  }
}
