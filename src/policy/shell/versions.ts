import type { ProgramRule } from './judge.js';
import type { ShellWord } from './words.js';

/**
 * `PROGRAM --version` and `PROGRAM --help` print and exit, for every program on the read-only
 * list (GNU tools, git, rg, jq, the shells; a program that does not know the option fails
 * without doing anything). Only as the one word: `xargs rg --version` would add words.
 */
export function asksVersion(words: readonly ShellWord[], moreUnknown: boolean): boolean {
  const [only, ...rest] = words;
  return (
    !moreUnknown &&
    rest.length === 0 &&
    only?.literal === true &&
    (only.value === '--version' || only.value === '--help')
  );
}

/**
 * Interpreters known here only by the words that print their version or usage: anything else
 * (a script, `-e`, `-p`, `-c`, `-m`, standard input) runs code the guard cannot read.
 */
export const versionOnly =
  (asks: readonly string[]): ProgramRule =>
  (words, context) => {
    const [only, ...rest] = words;
    if (!context.moreUnknown && rest.length === 0 && only?.literal && asks.includes(only.value)) {
      return undefined;
    }
    return `\`${context.program}\` runs code the guard cannot read (only \`${context.program} ${asks.join('`, `')}\` print and exit)`;
  };

/** Interpreters whose version an agent asks for before it starts. */
export const VERSION_ONLY_PROGRAMS: Readonly<Record<string, ProgramRule>> = {
  node: versionOnly(['--version', '-v', '--help', '-h']),
  python3: versionOnly(['--version', '-V', '--help', '-h']),
  python: versionOnly(['--version', '-V', '--help', '-h']),
};
