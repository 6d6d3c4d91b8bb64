import { existsSync, realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { JudgeContext, ProgramRule } from './judge.js';
import type { OptionSpec } from './options.js';
import { withOptions } from './rules.js';

/**
 * Options of git's history and diff commands that only shape what is printed. Left out on
 * purpose: `--output` (writes a file), `--ext-diff` and `--textconv` (run programs from config),
 * `-O`/`--open-files-in-pager` of `git grep` (runs a program), and every abbreviation.
 */
const SHOW: OptionSpec = {
  flags: 'psuRabwWqMCBDliEFPz',
  valued: 'nUSGLO',
  numeric: true,
  long: [
    'oneline',
    'stat',
    'numstat',
    'shortstat',
    'summary',
    'name-only',
    'name-status',
    'patch',
    'no-patch',
    'raw',
    'graph',
    'all',
    'branches',
    'tags',
    'remotes',
    'decorate',
    'no-decorate',
    'abbrev-commit',
    'no-abbrev-commit',
    'no-abbrev',
    'reverse',
    'follow',
    'first-parent',
    'merges',
    'no-merges',
    'cached',
    'staged',
    'no-color',
    'color',
    'ignore-all-space',
    'ignore-space-change',
    'ignore-space-at-eol',
    'ignore-blank-lines',
    'no-ext-diff',
    'no-textconv',
    'full-index',
    'check',
    'exit-code',
    'quiet',
    'histogram',
    'patience',
    'minimal',
    'find-renames',
    'find-copies',
    'no-renames',
    'topo-order',
    'date-order',
    'author-date-order',
    'left-right',
    'cherry-pick',
    'cherry-mark',
    'boundary',
    'full-history',
    'simplify-by-decoration',
    'ancestry-path',
    'source',
    'parents',
    'children',
    'invert-grep',
    'regexp-ignore-case',
    'all-match',
    'extended-regexp',
    'fixed-strings',
    'perl-regexp',
    'basic-regexp',
    'pickaxe-all',
    'pickaxe-regex',
    'no-index',
    'full-diff',
    'expand-tabs',
    'no-expand-tabs',
    'use-mailmap',
    'no-mailmap',
    'mailmap',
    'text',
    'word-diff',
    'color-words',
    'compact-summary',
    'dirstat',
    'name-rev',
    'no-walk',
    'relative',
    'no-relative',
    'binary',
    'unified',
  ],
  longValued: [
    'pretty',
    'format',
    'date',
    'author',
    'committer',
    'since',
    'after',
    'until',
    'before',
    'grep',
    'max-count',
    'skip',
    'diff-filter',
    'abbrev',
    'stat-width',
    'stat-count',
    'line-prefix',
    'word-diff-regex',
    'ws-error-highlight',
    'submodule',
    'ignore-submodules',
    'max-parents',
    'min-parents',
    'encoding',
    'decorate-refs',
    'decorate-refs-exclude',
    'src-prefix',
    'dst-prefix',
    'inter-hunk-context',
  ],
};

const STATUS: OptionSpec = {
  flags: 'sbvuz',
  long: [
    'short',
    'branch',
    'porcelain',
    'long',
    'verbose',
    'untracked-files',
    'ignored',
    'no-column',
    'column',
    'ahead-behind',
    'no-ahead-behind',
    'renames',
    'no-renames',
    'show-stash',
    'null',
    'find-renames',
  ],
  longValued: ['porcelain', 'untracked-files', 'ignored', 'ignore-submodules', 'find-renames'],
};

const GREP: OptionSpec = {
  flags: 'iIvwnlLchHoqEFGPazW',
  valued: 'efABCm',
  numeric: true,
  long: [
    'ignore-case',
    'word-regexp',
    'invert-match',
    'line-number',
    'files-with-matches',
    'files-without-match',
    'name-only',
    'count',
    'cached',
    'untracked',
    'no-index',
    'no-exclude-standard',
    'exclude-standard',
    'recurse-submodules',
    'extended-regexp',
    'fixed-strings',
    'basic-regexp',
    'perl-regexp',
    'and',
    'or',
    'not',
    'all-match',
    'show-function',
    'function-context',
    'heading',
    'break',
    'full-name',
    'null',
    'column',
    'only-matching',
    'quiet',
    'text',
    'no-color',
    'color',
  ],
  longValued: ['max-depth', 'threads', 'after-context', 'before-context', 'context', 'max-count'],
};

const BLAME: OptionSpec = {
  flags: 'bcflnpsetwMC',
  valued: 'LS',
  long: [
    'root',
    'show-stats',
    'porcelain',
    'line-porcelain',
    'incremental',
    'show-name',
    'show-number',
    'show-email',
    'first-parent',
    'reverse',
    'progress',
    'no-progress',
    'score-debug',
  ],
  longValued: ['date', 'abbrev', 'ignore-rev', 'ignore-revs-file', 'contents', 'encoding'],
};

/** Listing-only forms: options that list, and operands only as patterns to list. */
const LIST: OptionSpec = {
  flags: 'alrvn',
  long: ['list', 'all', 'remotes', 'verbose', 'show-current', 'no-color', 'column', 'no-column'],
  longValued: ['contains', 'no-contains', 'merged', 'no-merged', 'sort', 'format', 'points-at'],
};

const PLUMBING: OptionSpec = {
  flags: 'tpsenzrdcomqvl',
  long: [
    'cached',
    'deleted',
    'modified',
    'others',
    'ignored',
    'stage',
    'directory',
    'full-name',
    'full-tree',
    'name-only',
    'name-status',
    'abbrev',
    'long',
    'tags',
    'all',
    'always',
    'show-toplevel',
    'show-prefix',
    'show-cdup',
    'git-dir',
    'absolute-git-dir',
    'git-common-dir',
    'is-inside-work-tree',
    'is-bare-repository',
    'abbrev-ref',
    'symbolic-full-name',
    'verify',
    'short',
    'exclude-standard',
    'count',
    'reverse',
    'first-parent',
    'heads',
    'head',
    'dereference',
    'hash',
    'batch-check',
    'objects',
    'no-walk',
    'merges',
    'no-merges',
    'is-ancestor',
    'octopus',
    'independent',
    'fork-point',
    'help',
    'human-readable',
    'stdin',
    'non-matching',
    'verbose',
  ],
  longValued: [
    'abbrev',
    'format',
    'sort',
    'max-count',
    'since',
    'until',
    'short',
    'points-at',
    'contains',
    'merged',
    'exclude',
    'match',
    'candidates',
    'dirty',
  ],
};

/** git's commands known to only read, each with its options. */
const SUBCOMMANDS: Readonly<Record<string, ProgramRule>> = {
  status: withOptions(STATUS),
  log: withOptions(SHOW),
  show: withOptions(SHOW),
  diff: withOptions(SHOW),
  whatchanged: withOptions(SHOW),
  shortlog: withOptions({
    ...SHOW,
    flags: `${SHOW.flags}ne`,
    long: [...(SHOW.long ?? []), 'summary', 'numbered', 'email'],
  }),
  grep: withOptions(GREP),
  blame: withOptions(BLAME),
  branch: withOptions(LIST, { check: listsOnly }),
  tag: withOptions(LIST, { check: listsOnly }),
  'rev-parse': withOptions(PLUMBING),
  'ls-files': withOptions(PLUMBING),
  'ls-tree': withOptions(PLUMBING),
  'rev-list': withOptions(PLUMBING),
  'merge-base': withOptions(PLUMBING),
  'show-ref': withOptions(PLUMBING),
  'for-each-ref': withOptions(PLUMBING),
  'name-rev': withOptions(PLUMBING),
  'count-objects': withOptions(PLUMBING, { maxOperands: 0 }),
  'check-ignore': withOptions(PLUMBING),
  describe: withOptions(PLUMBING),
  'cat-file': withOptions(PLUMBING),
  version: withOptions({}),
  remote: withOptions({ flags: 'v', long: ['verbose'] }, { maxOperands: 0 }),
  stash: (words, context) => {
    const sub = words[0];
    if (sub === undefined || !sub.literal || !['list', 'show'].includes(sub.value)) {
      return '`git stash` changes the working tree (only `git stash list` and `git stash show` read)';
    }
    return withOptions(SHOW)(words.slice(1), context);
  },
  config: withOptions(
    {
      flags: 'lz',
      long: [
        'list',
        'get',
        'get-all',
        'get-regexp',
        'show-origin',
        'show-scope',
        'null',
        'name-only',
        'global',
        'system',
        'local',
        'includes',
        'no-includes',
      ],
      longValued: ['default', 'type'],
    },
    {
      check(parsed) {
        const reads = parsed.options.some((o) =>
          ['-l', '--list', '--get', '--get-all', '--get-regexp'].includes(o.name),
        );
        return reads ? undefined : '`git config` without `--get`/`--list` may set a value';
      },
    },
  ),
  reflog: (words, context) => {
    const sub = words[0];
    if (sub?.literal && ['expire', 'delete', 'drop'].includes(sub.value)) {
      return `\`git reflog ${sub.value}\` changes the repository`;
    }
    return withOptions(SHOW)(
      sub?.literal && sub.value === 'show' ? words.slice(1) : words,
      context,
    );
  },
  worktree: (words) =>
    words.length >= 1 &&
    words[0]?.literal &&
    words[0].value === 'list' &&
    words
      .slice(1)
      .every((w) => w.literal && ['--porcelain', '-v', '--verbose', '-z'].includes(w.value))
      ? undefined
      : '`git worktree` changes worktrees (only `git worktree list` reads)',
};

/** `git branch`/`git tag` list with no operand; with `--list`/`-l` operands are patterns. */
function listsOnly(parsed: { options: Array<{ name: string }>; operands: unknown[] }) {
  if (parsed.operands.length === 0) return undefined;
  return parsed.options.some((o) => o.name === '-l' || o.name === '--list')
    ? undefined
    : 'a branch or tag name without `--list` creates it';
}

/** Options before the subcommand that change nothing git runs or where it looks. */
const GLOBAL = new Set([
  '--no-pager',
  '-P',
  '--no-optional-locks',
  '--literal-pathspecs',
  '--no-replace-objects',
]);

/**
 * `git SUBCOMMAND …` with a subcommand known to only read. git reads the repository it finds
 * from its working folder up: a `.git` in a folder the agent may write without a plan (a model
 * can write `plans/.git/config` with `core.fsmonitor = …`) would be a repository whose config
 * runs programs. So git runs only where the repository it finds is the project's own (no `.git`
 * between the folder and the project root), and the options that name another repository, work
 * tree, config or program (`-C`, `-c`, `--git-dir`, `--work-tree`, `--exec-path`,
 * `--config-env`) are refused.
 */
export const git: ProgramRule = (words, context) => {
  if (context.moreUnknown) return 'git would be given arguments only known when it runs';
  let i = 0;
  for (; i < words.length; i++) {
    const word = words[i];
    if (word === undefined || !word.mayBeOption) break;
    if (!word.literal) return `\`${word.text}\` is only known when the command runs`;
    if (word.value === '--version' || word.value === '--help') return undefined;
    if (!GLOBAL.has(word.value))
      return `git's \`${word.value}\` changes where git looks or what it runs`;
  }
  const sub = words[i];
  if (sub === undefined) return undefined;
  if (!sub.literal) return `\`${sub.text}\` is only known when the command runs`;
  const rule = SUBCOMMANDS[sub.value];
  if (rule === undefined) return `\`git ${sub.value}\` is not known to only read`;
  const elsewhere = foreignRepository(context);
  if (elsewhere) return elsewhere;
  return rule(words.slice(i + 1), { ...context, program: `git ${sub.value}` });
};

function foreignRepository(context: JudgeContext): string | undefined {
  const cwd = context.command.cwd;
  if (cwd === undefined) return 'git runs in a folder that is not known';
  let root: string;
  try {
    root = realpathSync.native(context.root);
  } catch {
    return `the project root ${context.root} cannot be resolved`;
  }
  let dir = cwd.physical;
  if (dir !== root && !dir.startsWith(`${root}/`)) return 'git runs outside the project';
  while (dir !== root) {
    if (existsSync(join(dir, '.git'))) {
      return `git would use the repository in ${dir.slice(root.length + 1)}, not the project's`;
    }
    dir = dirname(dir);
  }
  return undefined;
}
