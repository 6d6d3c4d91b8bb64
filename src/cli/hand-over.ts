import { resolve } from 'node:path';
import { quote } from 'shell-quote';
import { hermesCommand } from '../command-name.js';
import { hermesHome, hermesHomeProblem } from '../config/locations.js';
import { packageVersion } from '../package-root.js';
import { noteProjectCopy, type ProjectCopy, projectCopyOf } from '../project-copy.js';
import { inspectProjectTrust } from '../trust/project-trust.js';

/**
 * Set, to the folder of the copy that handed it over, in the environment of a command handed
 * over: the copy it lands in answers it, whatever it finds (one hand-over, never a loop).
 */
export const HANDED_OVER = 'HERMES_EXTENSIONS_HANDED_OVER';

/**
 * Commands that stay with the copy that runs them. The hook (and the daemon that answers it, and
 * `serve`, which a host runs as its hook runtime) is the command the user installed, by this
 * copy's path: a project that ships a `node_modules/hermes-extensions` must not replace the guard
 * that checks it. `demo` runs its own sample project.
 */
const STAYS = new Set(['hook', 'daemon', 'demo']);

/**
 * `extensions` commands that stay too. `serve` is a host's hook runtime. `trust` and
 * `approvals` are how the user reviews and grants: trust does not cover `node_modules`, so a
 * project trusted once could later ship a copy that shows a review of its choosing and records
 * whatever it likes. The user's own copy answers them.
 */
const EXTENSIONS_STAY = new Set(['serve', 'trust', 'approvals']);

/**
 * The bin of the project's own copy of hermes-extensions when this command is to be handed over
 * to it (docs/cli.md, "Two copies"): an interactive command (not the hook, the daemon, `serve`,
 * `demo`, `trust` or `approvals`), run in a project (`--cwd`, else the working directory) that has its own copy
 * (project-copy.ts), not handed over already, and a project the user trusted (its trust record
 * is there and its code unchanged, trust/project-trust.ts): the project's copy is the project's
 * code, which runs only once the user trusted the project. Otherwise undefined, and when that
 * copy is of another version `tell` says so with the command that runs it (`npx hermes …`); the
 * command's advice names that copy as well (optional-peers.ts).
 */
export function handOverTarget(
  argv: readonly string[],
  tell: (line: string) => void,
  env: NodeJS.ProcessEnv = process.env,
): string | undefined {
  if (STAYS.has(argv[0] ?? '') || env[HANDED_OVER]) return undefined;
  // `hermes trust` is `hermes extensions trust` (main.ts, short forms).
  const command = argv[0] === 'extensions' ? argv[1] : argv[0];
  const stays = EXTENSIONS_STAY.has(command ?? '');
  const home = hermesHome();
  if (hermesHomeProblem(home) !== undefined) return undefined;
  const cwd = resolve(cwdOption(argv) ?? process.cwd());
  const copy = projectCopyOf(cwd, home);
  if (copy === undefined) return undefined;
  if (!stays && trusted(cwd, home)) return copy.bin;
  const run = `npx ${hermesCommand().replace(/^npx /, '')} ${quote([...argv])}`.trimEnd();
  noteProjectCopy(copy, run);
  if (copy.version !== packageVersion()) tell(otherVersion(copy, run));
  return undefined;
}

function otherVersion(copy: ProjectCopy, run: string): string {
  return `this project has its own hermes-extensions ${copy.version} (${copy.packageDir}); this is ${packageVersion()}. hermes hands its commands to the project's copy only in a project you trusted; to use it now, run \`${run}\` in ${copy.project}`;
}

function trusted(cwd: string, home: string): boolean {
  try {
    return inspectProjectTrust({ cwd, home }).state === 'trusted';
  } catch {
    return false;
  }
}

/** The last `--cwd DIR` (or `--cwd=DIR`) of the command line, as commander reads it. */
function cwdOption(argv: readonly string[]): string | undefined {
  let cwd: string | undefined;
  argv.forEach((word, at) => {
    if (word === '--cwd' && argv[at + 1] !== undefined) cwd = argv[at + 1];
    else if (word.startsWith('--cwd=')) cwd = word.slice('--cwd='.length);
  });
  return cwd;
}
