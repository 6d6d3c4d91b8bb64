import type { JudgeContext, ProgramRule } from './judge.js';
import { type OptionSpec, type ParsedOptions, parseOptions } from './options.js';
import type { ShellWord } from './words.js';

/**
 * Programs that run another command: what they run is judged as a command of its own, with the
 * same rules, and the wrapper's own options are on an allowlist (`env -S`, `env -u`, `env -C`,
 * `xargs -a`… are not).
 */

/** `env [--] PROGRAM …`: no options, no `NAME=value` (that changes what the program reads). */
export const env: ProgramRule = (words, context) => {
  let i = 0;
  if (words[0]?.literal && words[0].value === '--') i = 1;
  const first = words[i];
  if (first === undefined) {
    // Alone it prints the environment; `xargs env` runs what the input names.
    return context.moreUnknown
      ? 'env would be given words only known when it runs (its program among them)'
      : undefined;
  }
  if (first.mayBeOption) return `\`env ${first.text}\` changes how the program runs`;
  if (!first.literal || first.value.includes('=')) {
    return `\`env ${first.text}\` sets an environment variable`;
  }
  return context.inner(words.slice(i), context.moreUnknown);
};

/** `timeout [-s SIG] [-k DURATION] DURATION PROGRAM …`. */
export const timeout: ProgramRule = (words, context) =>
  wrapped(words, context, {
    flags: 'v',
    valued: 'sk',
    long: ['foreground', 'preserve-status', 'verbose'],
    longValued: ['signal', 'kill-after'],
    leading: 1,
  });

/** `nice [-n N] PROGRAM …`. */
export const nice: ProgramRule = (words, context) =>
  wrapped(words, context, { valued: 'n', longValued: ['adjustment'], numeric: true, leading: 0 });

/** `command -v NAME` prints; `command [-p] PROGRAM …` runs it. */
export const command: ProgramRule = (words, context) => {
  const first = words[0];
  if (first?.literal && (first.value === '-v' || first.value === '-V')) return undefined;
  // `command cd DIR` changes the shell's folder as `cd` does, where the walk does not follow it.
  const program = words.find((word) => !(word.literal && word.value.startsWith('-')));
  if (program?.literal && ['cd', 'pushd', 'popd'].includes(program.value)) {
    return `\`command ${program.value}\` changes the folder without the guard following it; write \`cd DIR\``;
  }
  return wrapped(words, context, { flags: 'p', leading: 0 });
};

/** `xargs [options] PROGRAM …`: PROGRAM gets words from standard input, only known when it runs. */
export const xargs: ProgramRule = (words, context) => {
  // `xargs xargs CMD`: the inner xargs's program and options come from the input.
  if (context.moreUnknown) {
    return 'xargs would be given words only known when it runs (its program among them)';
  }
  if (words.length === 0) return undefined; // echo
  return wrapped(words, context, {
    replace: replaced,
    flags: '0rtx',
    valued: 'nLdIPsE',
    long: ['null', 'no-run-if-empty', 'verbose', 'exit'],
    longValued: ['max-args', 'max-lines', 'delimiter', 'max-procs', 'max-chars', 'eof'],
    leading: 0,
    moreUnknown: true,
  });
};

/**
 * `sh -c CODE [NAME [ARG…]]` (also bash and dash): CODE is parsed and judged like the line
 * itself. A script file, `-s` (commands from standard input), `-i`, `--rcfile` are refused.
 * Other shells (zsh, fish, ksh, csh) are not bash: their code is not understood.
 */
export const shell: ProgramRule = (words, context) => {
  // `xargs -I% sh -c 'echo %'`: the code itself is only known when it runs.
  if (context.moreUnknown) return `${context.program} would be given code only known when it runs`;
  const parsed = parseOptions(context.program, wordsUntilCode(words), {
    flags: 'ceulvn',
    valued: 'o',
    long: ['login', 'noprofile', 'norc', 'posix'],
  });
  if (typeof parsed === 'string') {
    return /`-[ak]`|`-x`/.test(parsed) ? `${parsed} (${SHELL_OPTION_RISK})` : parsed;
  }
  for (const option of parsed.options) {
    if (option.name === '-o' && !SAFE_SHELL_OPTIONS.has(option.value?.value ?? '')) {
      return `\`${context.program} -o ${option.value?.text}\` is not a shell option known to only read (${SHELL_OPTION_RISK})`;
    }
  }
  if (!parsed.options.some((option) => option.name === '-c')) {
    return `${context.program} without -c runs a script the guard cannot read`;
  }
  const code = words[wordsUntilCode(words).length];
  if (code === undefined) return `${context.program} -c without code`;
  if (!code.literal) return `the code \`${code.text}\` is only known when it runs`;
  // sh and dash may be dash: the code must mean the same to it (posix.ts).
  return context.script(code.value, context.program !== 'bash');
};

/**
 * Shell options that change nothing a command does to files or variables. Left out on purpose:
 * allexport (`-a`: every assignment exported to the programs run after it), keyword (`-k`:
 * `NAME=value` anywhere on a command line assigns), xtrace (`-x`: PS4 is expanded, code
 * included, before every command), and whatever else a shell adds.
 */
const SAFE_SHELL_OPTIONS = new Set([
  'pipefail',
  'errexit',
  'nounset',
  'noclobber',
  'noglob',
  'noexec',
  'verbose',
]);
const SHELL_OPTION_RISK =
  'allexport and -a export every assignment, keyword and -k make NAME=value anywhere an assignment, xtrace and -x expand PS4 as code';

/** The shell's options: every word up to the first operand (the code, with -c). */
function wordsUntilCode(words: readonly ShellWord[]) {
  const end = words.findIndex((word, i) => {
    if (!word.literal || !word.value.startsWith('-')) {
      // `-o pipefail`: the value of -o is not the code.
      const previous = words[i - 1];
      return !(previous?.literal && /^-[a-z]*o$/.test(previous.value));
    }
    return false;
  });
  return end === -1 ? words : words.slice(0, end);
}

/**
 * `xargs -I R PROGRAM …` puts each input line wherever R occurs in the words, the program's name
 * included: such words are only known when it runs, and a program so named is refused.
 */
function replaced(parsed: ParsedOptions, rest: ShellWord[]): ShellWord[] | string {
  const option = parsed.options.find((o) => o.name === '-I');
  const mark = option?.value?.value;
  if (mark === undefined) return rest;
  if (mark === '' || rest[0]?.value.includes(mark)) {
    return `\`xargs -I ${mark}\` puts the input into the program's name`;
  }
  return rest.map((word) =>
    word.value.includes(mark)
      ? {
          value: word.text,
          text: word.text,
          literal: false,
          mayBeOption: true,
          pattern: false,
          single: true,
        }
      : word,
  );
}

/** A wrapper's own options, `leading` operands of its own (timeout's duration), then the program. */
function wrapped(
  words: readonly ShellWord[],
  context: JudgeContext,
  spec: OptionSpec & {
    leading: number;
    moreUnknown?: boolean;
    replace?: (parsed: ParsedOptions, rest: ShellWord[]) => ShellWord[] | string;
  },
): string | undefined {
  // The wrapper's options end at its first operand: what follows belongs to the program.
  let end = 0;
  for (; end < words.length; end++) {
    const word = words[end];
    if (word === undefined || !word.mayBeOption) break;
    const valued = spec.valued ?? '';
    const text = word.value;
    if (word.literal && /^-[a-zA-Z]$/.test(text) && valued.includes(text[1] as string)) end++;
    else if (
      word.literal &&
      text.startsWith('--') &&
      !text.includes('=') &&
      spec.longValued?.includes(text.slice(2))
    )
      end++;
  }
  const parsed = parseOptions(context.program, words.slice(0, end), spec);
  if (typeof parsed === 'string') return parsed;
  const rest = spec.replace ? spec.replace(parsed, words.slice(end)) : words.slice(end);
  if (typeof rest === 'string') return rest;
  for (let i = 0; i < spec.leading; i++) {
    const operand = rest.shift();
    if (operand === undefined) return `${context.program} without a program to run`;
    if (!operand.literal) return `\`${operand.text}\` is only known when the command runs`;
  }
  if (rest.length === 0) return `${context.program} without a program to run`;
  return context.inner(rest, context.moreUnknown || spec.moreUnknown === true);
}

/**
 * The programs that run another command, by name, with the rules that read them: the read-only
 * allowlist (programs.ts) and `unwrapCommand` (unwrap.ts) take wrappers off the same way.
 */
export const WRAPPERS: Readonly<Record<string, ProgramRule>> = {
  env,
  timeout,
  nice,
  command,
  xargs,
  sh: shell,
  bash: shell,
  dash: shell,
};
