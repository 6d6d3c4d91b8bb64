import { awk } from './awk.js';
import { BUILTINS } from './builtin-table.js';
import { find } from './find.js';
import { git } from './git.js';
import type { ProgramRule } from './judge.js';
import { npm } from './npm.js';
import { read } from './read.js';
import { anyArgs, withOptions } from './rules.js';
import { sed } from './sed.js';
import { VERSION_ONLY_PROGRAMS } from './versions.js';
import { WRAPPERS } from './wrappers.js';

/** `tee FILE…` and `mkdir DIR…` write what they name: the guard decides where that may be. */
const writesOperands =
  (spec: Parameters<typeof withOptions>[0]): ProgramRule =>
  (words, context) =>
    withOptions(spec, {
      check(parsed) {
        for (const operand of parsed.operands) {
          if (!operand.literal) return `\`${operand.text}\` is only known when the command runs`;
          const problem = context.write(operand);
          if (problem) return problem;
        }
        return undefined;
      },
    })(words, context);

/**
 * The programs a shell command may run without a plan, each with the rule that says which uses
 * of it only read. A program is known by its bare name only (`plans/ls` is a file the model may
 * have written). Every option of a program on this list is on its own allowlist unless no option
 * of it writes or runs anything (`anyArgs`); so is every subcommand (git) and script (sed, find).
 */
export const READ_ONLY_PROGRAMS: Readonly<Record<string, ProgramRule>> = {
  // Print or compare what they are given; no option writes or runs anything.
  cat: anyArgs,
  head: anyArgs,
  tail: anyArgs,
  wc: anyArgs,
  ls: anyArgs,
  grep: anyArgs,
  egrep: anyArgs,
  fgrep: anyArgs,
  basename: anyArgs,
  dirname: anyArgs,
  realpath: anyArgs,
  readlink: anyArgs,
  printenv: anyArgs,
  whoami: anyArgs,
  id: anyArgs,
  uname: anyArgs,
  nl: anyArgs,
  cut: anyArgs,
  tr: anyArgs,
  paste: anyArgs,
  fold: anyArgs,
  rev: anyArgs,
  expand: anyArgs,
  unexpand: anyArgs,
  tac: anyArgs,
  comm: anyArgs,
  cmp: anyArgs,
  diff: anyArgs,
  md5sum: anyArgs,
  sha1sum: anyArgs,
  sha256sum: anyArgs,
  sha512sum: anyArgs,
  b2sum: anyArgs,
  cksum: anyArgs,
  od: anyArgs,
  hexdump: anyArgs,
  strings: anyArgs,
  stat: anyArgs,
  du: anyArgs,
  df: anyArgs,
  seq: anyArgs,
  sleep: anyArgs,
  which: anyArgs,
  jq: anyArgs,
  ps: anyArgs,
  column: anyArgs,

  // bash's builtins, each with its grammar (builtins.ts).
  ...BUILTINS,

  // Read, but some options write or run: only the listed ones.
  sort: withOptions({
    flags: 'bdfgiMhnRrVcCmsuz',
    valued: 'kSt',
    long: [
      'ignore-leading-blanks',
      'dictionary-order',
      'ignore-case',
      'general-numeric-sort',
      'ignore-nonprinting',
      'month-sort',
      'human-numeric-sort',
      'numeric-sort',
      'random-sort',
      'reverse',
      'version-sort',
      'check',
      'merge',
      'stable',
      'unique',
      'zero-terminated',
      'debug',
    ],
    longValued: ['key', 'buffer-size', 'field-separator', 'sort', 'parallel', 'check'],
  }),
  // A second operand is the file uniq writes.
  uniq: withOptions(
    {
      flags: 'cdDiuz',
      valued: 'fsw',
      long: [
        'count',
        'repeated',
        'all-repeated',
        'ignore-case',
        'unique',
        'zero-terminated',
        'group',
      ],
      longValued: ['skip-fields', 'skip-chars', 'check-chars', 'all-repeated', 'group'],
    },
    { maxOperands: 1 },
  ),
  // A second operand is the file xxd writes.
  xxd: withOptions({ flags: 'aCEeiurpdbhu', valued: 'cglosn' }, { maxOperands: 1 }),
  // -C compiles a magic file (writes), -p resets access times.
  file: withOptions({
    flags: 'bcdEhiklLNnrsvzZ0',
    valued: 'efFmP',
    long: [
      'brief',
      'mime',
      'mime-type',
      'mime-encoding',
      'dereference',
      'no-dereference',
      'keep-going',
      'raw',
      'special-files',
      'uncompress',
      'uncompress-noreport',
      'extension',
      'apple',
      'print0',
      'no-pad',
      'no-buffer',
    ],
    longValued: ['separator', 'magic-file', 'files-from', 'exclude', 'exclude-quiet', 'parameter'],
  }),
  // -o writes the listing to a file.
  tree: withOptions({
    flags: 'adlfxiqNQpugshDFvtcUrCnJXA',
    valued: 'LPI',
    long: [
      'noreport',
      'dirsfirst',
      'filesfirst',
      'gitignore',
      'prune',
      'du',
      'si',
      'inodes',
      'device',
      'matchdirs',
      'ignore-case',
      'nolinks',
    ],
    longValued: ['charset', 'filelimit', 'sort', 'timefmt'],
  }),
  // --pre and --hostname-bin run programs.
  rg: withOptions({
    flags: 'isSwxvnNlcoFuLqUPHIpzab0',
    valued: 'efgtTABCmdMEjr',
    long: [
      'ignore-case',
      'case-sensitive',
      'smart-case',
      'word-regexp',
      'line-regexp',
      'invert-match',
      'line-number',
      'no-line-number',
      'files-with-matches',
      'files-without-match',
      'count',
      'count-matches',
      'only-matching',
      'fixed-strings',
      'unrestricted',
      'hidden',
      'no-hidden',
      'no-ignore',
      'no-ignore-vcs',
      'no-ignore-dot',
      'no-ignore-parent',
      'follow',
      'files',
      'type-list',
      'json',
      'no-heading',
      'heading',
      'with-filename',
      'no-filename',
      'pretty',
      'quiet',
      'multiline',
      'multiline-dotall',
      'pcre2',
      'stats',
      'trim',
      'null',
      'column',
      'byte-offset',
      'vimgrep',
      'text',
      'search-zip',
      'no-messages',
      'one-file-system',
      'glob-case-insensitive',
      'no-config',
      'passthru',
      'max-columns-preview',
      'sort-files',
      'debug',
    ],
    longValued: [
      'regexp',
      'file',
      'glob',
      'iglob',
      'type',
      'type-not',
      'after-context',
      'before-context',
      'context',
      'max-count',
      'max-depth',
      'max-filesize',
      'color',
      'colors',
      'sort',
      'sortr',
      'threads',
      'encoding',
      'path-separator',
      'max-columns',
      'replace',
      'type-add',
    ],
  }),
  // -x/--exec and -X/--exec-batch run programs.
  fd: withOptions({
    flags: 'HIusigFalLp0q1',
    valued: 'dtemESojc',
    long: [
      'hidden',
      'no-hidden',
      'no-ignore',
      'no-ignore-vcs',
      'unrestricted',
      'case-sensitive',
      'ignore-case',
      'glob',
      'regex',
      'fixed-strings',
      'absolute-path',
      'relative-path',
      'list-details',
      'follow',
      'full-path',
      'print0',
      'quiet',
      'show-errors',
      'strip-cwd-prefix',
      'prune',
      'one-file-system',
    ],
    longValued: [
      'max-depth',
      'min-depth',
      'exact-depth',
      'type',
      'extension',
      'exclude',
      'size',
      'changed-within',
      'changed-before',
      'owner',
      'color',
      'threads',
      'max-results',
      'base-directory',
      'format',
    ],
  }),
  // An operand not starting with `+` (or -s, --set) sets the clock.
  date: withOptions(
    {
      flags: 'uRI',
      valued: 'dfr',
      long: ['utc', 'universal', 'rfc-email', 'debug', 'iso-8601'],
      longValued: ['date', 'file', 'reference', 'iso-8601', 'rfc-3339'],
    },
    {
      check: ({ operands }) =>
        operands.every((o) => o.value.startsWith('+'))
          ? undefined
          : 'date with an operand sets the clock',
    },
  ),
  // An operand (or -F, -b) sets the host name.
  hostname: withOptions(
    {
      flags: 'sfdiIAa',
      long: ['short', 'fqdn', 'long', 'domain', 'ip-address', 'all-ip-addresses', 'all-fqdns'],
    },
    { maxOperands: 0 },
  ),
  sed,
  find,
  git,

  // Write what they name; where is the guard's call.
  tee: writesOperands({ flags: 'aip', long: ['append', 'ignore-interrupts'] }),
  mkdir: writesOperands({
    flags: 'pv',
    valued: 'm',
    long: ['parents', 'verbose'],
    longValued: ['mode'],
  }),

  // Run another command, judged in turn.
  ...WRAPPERS,

  // Read by a grammar of their own: awk's program (awk-program.ts), npm's reading commands,
  // read's variables (read.ts); interpreters only as far as printing their version.
  awk,
  gawk: awk,
  mawk: awk,
  npm,
  read,
  ...VERSION_ONLY_PROGRAMS,
};
