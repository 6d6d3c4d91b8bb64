import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

type Args = Record<string, unknown>;

/** The nearest folder at or above `dir` that holds a `.git` (a folder, or a file in a worktree). */
export function gitRoot(dir: string): string | undefined {
  for (let at = resolve(dir); ; at = dirname(at)) {
    if (existsSync(join(at, '.git'))) return at;
    if (dirname(at) === at) return undefined;
  }
}

/** The event's folder as the shell call's `workdir`, unless the call names its own. */
export function withWorkdir(args: Args, cwd: string | undefined): Args {
  return cwd === undefined || 'workdir' in args ? args : { ...args, workdir: cwd };
}

/** A rewrite goes back without the `workdir` the agent did not send. */
export function withoutWorkdir(input: Args, args: Args): Args {
  if ('workdir' in input) return args;
  const { workdir: _, ...rest } = args;
  return rest;
}
