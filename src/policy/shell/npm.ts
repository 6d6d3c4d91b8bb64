import { existsSync, realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { JudgeContext, ProgramRule } from './judge.js';
import type { OptionSpec } from './options.js';
import { withOptions } from './rules.js';

const LIST: OptionSpec = {
  flags: 'aglp',
  valued: 'w',
  long: [
    'all',
    'json',
    'long',
    'parseable',
    'global',
    'prod',
    'production',
    'dev',
    'link',
    'unicode',
    'workspaces',
    'include-workspace-root',
  ],
  longValued: ['depth', 'omit', 'include', 'workspace'],
};
const JSON_ONLY: OptionSpec = { long: ['json'] };

/**
 * npm's commands that only read: the dependency tree (`ls`), the registry (`view`, `outdated`,
 * `audit` without `fix`), where things are (`root`, `prefix`). None runs a package's scripts.
 * `install`, `run`, `exec`, `pkg set`, `version` with an operand… are not here, and no option
 * outside these lists is accepted (`--prefix`, `--userconfig`, `--script-shell`).
 */
const SUBCOMMANDS: Readonly<Record<string, ProgramRule>> = {
  ls: withOptions(LIST),
  list: withOptions(LIST),
  ll: withOptions(LIST),
  la: withOptions(LIST),
  view: withOptions(JSON_ONLY),
  info: withOptions(JSON_ONLY),
  show: withOptions(JSON_ONLY),
  v: withOptions(JSON_ONLY),
  explain: withOptions(JSON_ONLY),
  why: withOptions(JSON_ONLY),
  outdated: withOptions({ flags: 'alpg', long: ['all', 'json', 'long', 'parseable', 'global'] }),
  audit: withOptions(
    { long: ['json', 'production', 'omit-dev'], longValued: ['omit', 'audit-level'] },
    { maxOperands: 0 },
  ),
  root: withOptions({ flags: 'g', long: ['global'] }, { maxOperands: 0 }),
  prefix: withOptions({ flags: 'g', long: ['global'] }, { maxOperands: 0 }),
};

/**
 * `npm -v`, `npm --version` and npm's reading commands. npm takes settings from the `.npmrc` of
 * the package it finds from its folder up (and a version manager may act on a `package.json`'s
 * `packageManager`): one in a folder the agent may write without a plan could make it run
 * something. So, as git (git.ts), npm runs only where no `.npmrc` or `package.json` lies between
 * its folder and the project root: the project's own are the repository's.
 */
export const npm: ProgramRule = (words, context) => {
  if (context.moreUnknown) return 'npm would be given arguments only known when it runs';
  const [sub, ...rest] = words;
  if (sub === undefined) return 'npm without a command';
  if (!sub.literal) return `\`${sub.text}\` is only known when the command runs`;
  const version = (sub.value === '-v' || sub.value === '--version') && rest.length === 0;
  const rule = SUBCOMMANDS[sub.value];
  if (!version && rule === undefined) return `\`npm ${sub.value}\` is not known to only read`;
  const elsewhere = packageBelowRoot(context);
  if (elsewhere) return elsewhere;
  return rule?.(rest, { ...context, program: `npm ${sub.value}` });
};

function packageBelowRoot(context: JudgeContext): string | undefined {
  const cwd = context.command.cwd;
  if (cwd === undefined) return 'npm runs in a folder that is not known';
  let root: string;
  try {
    root = realpathSync.native(context.root);
  } catch {
    return `the project root ${context.root} cannot be resolved`;
  }
  let dir = cwd.physical;
  if (dir !== root && !dir.startsWith(`${root}/`)) return 'npm runs outside the project';
  while (dir !== root) {
    for (const name of ['.npmrc', 'package.json']) {
      if (existsSync(join(dir, name))) {
        return `npm would read ${dir.slice(root.length + 1)}/${name}, not the project's (run it from the project root)`;
      }
    }
    dir = dirname(dir);
  }
  return undefined;
}
