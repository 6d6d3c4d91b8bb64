import { readFileSync, realpathSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { findProjectRoot } from './config/locations.js';
import { PACKAGE_ROOT } from './package-root.js';

/**
 * hermes-extensions installed twice, in a project (`npm i -D`) and globally (`npm i -g`): the
 * project's own copy is the one its config, its extensions and the optional peers beside it
 * (rolldown, the sandbox runtime) were installed for. This finds it, for the command line to hand
 * a command over to it (cli/hand-over.ts) or to name it (`npx hermes …`) in its advice.
 */
export interface ProjectCopy {
  /** The project root (config/locations.ts, `findProjectRoot`). */
  project: string;
  /** Its `node_modules/hermes-extensions`. */
  packageDir: string;
  /** Its `bin/hermes.js`. */
  bin: string;
  version: string;
}

/**
 * The project's own copy of hermes-extensions when it is not this one: the nearest
 * `node_modules/hermes-extensions` from `cwd` up to the project root, as Node resolves a package
 * for a file of the project (never above the project root: a folder above it is not the
 * project's). Undefined when the nearest one is this copy, or there is none.
 */
export function projectCopyOf(cwd: string, home: string): ProjectCopy | undefined {
  const start = resolve(cwd);
  const project = findProjectRoot(start, home);
  for (let dir = start; ; dir = dirname(dir)) {
    const packageDir = join(dir, 'node_modules', 'hermes-extensions');
    const version = copyVersion(packageDir);
    if (version !== undefined) {
      if (real(packageDir) === real(PACKAGE_ROOT)) return undefined;
      return { project, packageDir, bin: join(packageDir, 'bin', 'hermes.js'), version };
    }
    if (dir === project || dirname(dir) === dir) return undefined;
  }
}

/** The version of the hermes-extensions in `packageDir`, when one with a bin is there. */
function copyVersion(packageDir: string): string | undefined {
  try {
    const manifest = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as {
      name?: unknown;
      version?: unknown;
    };
    if (manifest.name !== 'hermes-extensions' || typeof manifest.version !== 'string') return;
    return statSync(join(packageDir, 'bin', 'hermes.js')).isFile() ? manifest.version : undefined;
  } catch {
    return undefined;
  }
}

function real(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}

/**
 * The project copy of the command this process runs, when it answers the command itself (it did
 * not hand it over): set once by the command line, read by advice that would otherwise only say
 * how to install something beside this copy.
 */
let working: { copy: ProjectCopy; command: string } | undefined;

/** `command`: the user's command as the project's copy runs it (`npx hermes extensions trust`). */
export function noteProjectCopy(copy: ProjectCopy, command: string): void {
  working = { copy, command };
}

/**
 * `run \`npx hermes extensions trust\`: the project's own hermes-extensions 0.1.0
 * (node_modules/hermes-extensions) …`, when the command ran in a project that has its own copy;
 * else undefined.
 */
export function projectCopyAdvice(): string | undefined {
  if (working === undefined) return undefined;
  const { copy, command } = working;
  return `run \`${command}\` in ${copy.project} instead: the project's own hermes-extensions ${copy.version} (${copy.packageDir}) uses what is installed beside it in the project`;
}
