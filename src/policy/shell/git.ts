import { settingsBelowRoot } from './below-root.js';
import { BLAME, GREP, LIST, PLUMBING, SHOW, STATUS } from './git-options.js';
import type { JudgeContext, ProgramRule } from './judge.js';
import { withOptions } from './rules.js';

/** git's commands known to only read, each with its options. */
const SUBCOMMANDS: Readonly<Record<string, ProgramRule>> = {
  status: withOptions(STATUS),
  log: withOptions(SHOW),
  show: withOptions(SHOW),
  diff: withOptions(SHOW),
  whatchanged: withOptions(SHOW),
  // shortlog's -n sorts by count (`-sn`); log's -n takes a count.
  shortlog: withOptions({
    ...SHOW,
    flags: `${SHOW.flags}nec`,
    valued: SHOW.valued?.replace('n', ''),
    long: [...(SHOW.long ?? []), 'summary', 'numbered', 'email', 'committer'],
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
  cherry: withOptions({ flags: 'v' }, { maxOperands: 3 }),
  'show-ref': withOptions(PLUMBING),
  'for-each-ref': withOptions(PLUMBING),
  'name-rev': withOptions(PLUMBING),
  'count-objects': withOptions(PLUMBING, { maxOperands: 0 }),
  'check-ignore': withOptions(PLUMBING),
  describe: withOptions(PLUMBING),
  'cat-file': withOptions(PLUMBING),
  version: withOptions({}),
  remote: (words, context) =>
    words[0]?.literal && words[0].value === 'get-url'
      ? withOptions({ long: ['push', 'all'] }, { maxOperands: 1 })(words.slice(1), context)
      : withOptions({ flags: 'v', long: ['verbose'] }, { maxOperands: 0 })(words, context),
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
        // `git config user.name` gets it; a word without a dot is no key but a subcommand
        // (`git config edit` runs an editor), and a second operand is a value to set.
        const [key, ...more] = parsed.operands;
        const gets = key?.literal === true && key.value.includes('.') && more.length === 0;
        return reads || gets ? undefined : '`git config` without `--get`/`--list` may set a value';
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

/** A `.git` between git's folder and the project root: a repository the agent may have made. */
function foreignRepository(context: JudgeContext): string | undefined {
  return settingsBelowRoot({ ...context, program: 'git' }, ['.git']);
}
