import { execFileSync, spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

/**
 * Support for the differential tests of the mini-languages the analysis reads itself (sed's
 * script, find's expression): generated inputs are judged by the analysis, and every one it calls
 * read-only is run by the real GNU tool in a scratch folder, which must come out unchanged.
 */

/** A small seeded generator (mulberry32): the same inputs on every run. */
export function random(seed: number) {
  let state = seed >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (n: number) => Math.floor(next() * n),
    pick: <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T,
    chance: (p: number) => next() < p,
  };
}

/** Every file and folder under `root`, with its content, size and time of change. */
export function snapshot(root: string): Map<string, string> {
  const found = new Map<string, string>();
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      const stat = statSync(path);
      const key = relative(root, path);
      if (entry.isDirectory()) {
        found.set(`${key}/`, `${stat.mtimeMs}`);
        walk(path);
      } else {
        found.set(key, `${stat.mtimeMs}:${readFileSync(path, 'utf8')}`);
      }
    }
  };
  walk(root);
  return found;
}

/** What differs between two snapshots: files that appeared, changed or went. */
export function changes(before: Map<string, string>, after: Map<string, string>): string[] {
  const changed: string[] = [];
  for (const [path, state] of after) {
    if (!before.has(path)) changed.push(`+${path}`);
    else if (before.get(path) !== state) changed.push(`~${path}`);
  }
  for (const path of before.keys()) if (!after.has(path)) changed.push(`-${path}`);
  return changed;
}

/** Runs a program in `cwd` without a shell, its input empty, stopped after `timeoutMs`. */
export function run(
  program: string,
  args: readonly string[],
  cwd: string,
  timeoutMs = 1000,
  env: NodeJS.ProcessEnv = process.env,
) {
  return spawnSync(program, args, { cwd, timeout: timeoutMs, input: '', encoding: 'utf8', env });
}

/** Whether `program --version` says it is the GNU one (the readers follow GNU's grammar). */
export function isGnu(program: string): boolean {
  try {
    return /GNU/.test(execFileSync(program, ['--version'], { encoding: 'utf8' }));
  } catch {
    return false;
  }
}
