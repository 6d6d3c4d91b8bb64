import { existsSync } from 'node:fs';
import { basename, dirname, join, sep } from 'node:path';
import { PACKAGE_ROOT } from './package-root.js';

/**
 * The command line as the user runs it, for messages that tell them to run one of its commands:
 * `npx hermes` when this package is a project's own — run through a node_modules/.bin (as npx
 * and npm scripts run it, npx's own cache included), or installed in a project's node_modules
 * (the hook daemon and a hook's process run it there by path) — and `hermes` when it is
 * installed globally or runs from its own repository's bin. `hermes-extensions` instead of
 * `hermes` when the user ran it by that name (for machines where another `hermes` comes first).
 * npm's variables (`npm_command`, `npm_execpath`) do not decide it: every process below an npm
 * command inherits them, whatever it runs. Decided once per process, here only: every message
 * that names a command asks this module.
 */
export function hermesCommand(): string {
  command ??= decide(process.argv[1] ?? '');
  return command;
}

/** `<hermesCommand()> <args>`: `npx hermes extensions trust`, `hermes extensions trust`. */
export function hermesRun(args: string): string {
  return `${hermesCommand()} ${args}`;
}

let command: string | undefined;

function decide(script: string): string {
  const name = basename(script).startsWith('hermes-extensions') ? 'hermes-extensions' : 'hermes';
  const local =
    script.split(sep).join('/').includes('/node_modules/.bin/') ||
    inProjectNodeModules(PACKAGE_ROOT);
  return local ? `npx ${name}` : name;
}

/**
 * Whether the package sits in a project's node_modules (a folder with a package.json holds that
 * node_modules), not in a global install's (`<prefix>/lib/node_modules`, no package.json there).
 */
function inProjectNodeModules(packageRoot: string): boolean {
  const modules = dirname(packageRoot);
  if (basename(modules) !== 'node_modules') return false;
  return existsSync(join(dirname(modules), 'package.json'));
}
