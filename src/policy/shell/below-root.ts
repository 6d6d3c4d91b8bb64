import { existsSync, realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { JudgeContext } from './judge.js';

/**
 * Files by which a version manager's shim (pyenv, asdf, mise, volta, corepack) or npm picks what
 * to run and how, looked for from the program's folder up: a `.python-version` or
 * `.tool-versions` may name an interpreter by its path, an `.npmrc` sets npm's scripts' shell,
 * a `package.json` a package manager to fetch.
 */
export const INTERPRETER_SETTINGS = [
  'package.json',
  '.npmrc',
  '.nvmrc',
  '.node-version',
  '.python-version',
  '.tool-versions',
  '.mise.toml',
  'mise.toml',
  '.mise.local.toml',
  'mise.local.toml',
  '.mise',
  '.config',
];

/**
 * Why a program may not run where it does: one of `names` lies in a folder between its folder
 * and the project root, where the agent may have written it without a plan (as a `.git`, for
 * git). The project root's own are the repository's.
 */
export function settingsBelowRoot(
  context: JudgeContext,
  names: readonly string[],
): string | undefined {
  const program = context.program;
  const cwd = context.command.cwd;
  if (cwd === undefined) return `${program} runs in a folder that is not known`;
  let root: string;
  try {
    root = realpathSync.native(context.root);
  } catch {
    return `the project root ${context.root} cannot be resolved`;
  }
  let dir = cwd.physical;
  if (dir !== root && !dir.startsWith(`${root}/`)) return `${program} runs outside the project`;
  while (dir !== root) {
    for (const name of names) {
      if (existsSync(join(dir, name))) {
        return `${program} would read ${dir.slice(root.length + 1)}/${name}, not the project's (run it from the project root)`;
      }
    }
    dir = dirname(dir);
  }
  return undefined;
}
