import type { JudgeContext, ProgramRule } from './judge.js';
import { type OptionSpec, parseOptions } from './options.js';
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
  if (first === undefined) return undefined; // prints the environment
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
  return wrapped(words, context, { flags: 'p', leading: 0 });
};

/** `xargs [options] PROGRAM …`: PROGRAM gets words from standard input, only known when it runs. */
export const xargs: ProgramRule = (words, context) => {
  if (words.length === 0) return undefined; // echo
  return wrapped(words, context, {
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
    flags: 'ceuxlvn',
    valued: 'o',
    long: ['login', 'noprofile', 'norc', 'posix'],
  });
  if (typeof parsed === 'string') return parsed;
  if (!parsed.options.some((option) => option.name === '-c')) {
    return `${context.program} without -c runs a script the guard cannot read`;
  }
  const code = words[wordsUntilCode(words).length];
  if (code === undefined) return `${context.program} -c without code`;
  if (!code.literal) return `the code \`${code.text}\` is only known when it runs`;
  return context.script(code.value);
};

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

/** A wrapper's own options, `leading` operands of its own (timeout's duration), then the program. */
function wrapped(
  words: readonly ShellWord[],
  context: JudgeContext,
  spec: OptionSpec & { leading: number; moreUnknown?: boolean },
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
  const rest = words.slice(end);
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
