import { INTERPRETER_SETTINGS, settingsBelowRoot } from './below-root.js';
import type { ProgramRule } from './judge.js';
import type { OptionSpec, ParsedOptions } from './options.js';
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
 * A package by its registry name (`zod`, `@types/node@20`, `react@^18`), not a folder, tarball,
 * URL or git repository, which npm would fetch or unpack to read.
 */
const PACKAGE = /^(@[a-z0-9][\w.-]*\/)?[a-z0-9][\w.-]*(@[\w.^~<>=*|-]+)?$/i;
/** Fields of `npm view` (`version`, `dist.tarball`, `versions[0]`). */
const FIELD = /^[\w.[\]-]+$/;

/** Operands that are registry package names (and, after the first for `view`, fields). */
const packages =
  (fields: boolean) =>
  ({ operands }: ParsedOptions): string | undefined => {
    for (const [i, operand] of operands.entries()) {
      const pattern = fields && i > 0 ? FIELD : PACKAGE;
      if (!pattern.test(operand.value) || /\.(tgz|tar|tar\.gz)$/i.test(operand.value)) {
        return `\`${operand.text}\` is not a package name npm reads from the registry`;
      }
    }
    return undefined;
  };
const NAMES = { check: packages(false) };
const VIEW = { check: packages(true) };

/**
 * npm's commands that only read: the dependency tree (`ls`), the registry (`view`, `outdated`,
 * `audit` without `fix`), where things are (`root`, `prefix`). None runs a package's scripts.
 * `install`, `run`, `exec`, `pkg set`, `version` with an operand… are not here, and no option
 * outside these lists is accepted (`--prefix`, `--userconfig`, `--script-shell`).
 */
const SUBCOMMANDS: Readonly<Record<string, ProgramRule>> = {
  ls: withOptions(LIST, NAMES),
  list: withOptions(LIST, NAMES),
  ll: withOptions(LIST, NAMES),
  la: withOptions(LIST, NAMES),
  view: withOptions(JSON_ONLY, VIEW),
  info: withOptions(JSON_ONLY, VIEW),
  show: withOptions(JSON_ONLY, VIEW),
  v: withOptions(JSON_ONLY, VIEW),
  explain: withOptions(JSON_ONLY, NAMES),
  why: withOptions(JSON_ONLY, NAMES),
  outdated: withOptions(
    { flags: 'alpg', long: ['all', 'json', 'long', 'parseable', 'global'] },
    NAMES,
  ),
  audit: withOptions(
    { long: ['json', 'production', 'omit-dev'], longValued: ['omit', 'audit-level'] },
    { maxOperands: 0 },
  ),
  root: withOptions({ flags: 'g', long: ['global'] }, { maxOperands: 0 }),
  prefix: withOptions({ flags: 'g', long: ['global'] }, { maxOperands: 0 }),
};

/**
 * `npm -v`, `npm --version` and npm's reading commands. npm takes settings from the `.npmrc` of
 * the package it finds from its folder up, and a version manager's shim picks the npm to run by
 * files found the same way: one in a folder the agent may write without a plan could make it run
 * something. So, as git (git.ts), npm runs only where none lies between its folder and the
 * project root (below-root.ts).
 */
export const npm: ProgramRule = (words, context) => {
  if (context.moreUnknown) return 'npm would be given arguments only known when it runs';
  const [sub, ...rest] = words;
  if (sub === undefined) return 'npm without a command';
  if (!sub.literal) return `\`${sub.text}\` is only known when the command runs`;
  const version = (sub.value === '-v' || sub.value === '--version') && rest.length === 0;
  const rule = SUBCOMMANDS[sub.value];
  if (!version && rule === undefined) return `\`npm ${sub.value}\` is not known to only read`;
  const elsewhere = settingsBelowRoot(context, INTERPRETER_SETTINGS);
  if (elsewhere) return elsewhere;
  return rule?.(rest, { ...context, program: `npm ${sub.value}` });
};
