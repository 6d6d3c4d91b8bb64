import { INTERPRETER_SETTINGS, settingsBelowRoot } from './below-root.js';
import type { ProgramRule } from './judge.js';
import type { ShellWord } from './words.js';

/** Programs a version manager's shim may pick by files where they run (below-root.ts). */
const PICKED_BY_SETTINGS = new Set(['node', 'python3', 'python', 'npm']);

/**
 * `PROGRAM --version` and `PROGRAM --help` print and exit, for every program on the read-only
 * list (GNU tools, git, rg, jq, the shells; a program that does not know the option fails
 * without doing anything). Only as the one word: `xargs rg --version` would add words. Not for
 * the programs a version manager may pick (their rules look where they run).
 */
export function asksVersion(
  program: string,
  words: readonly ShellWord[],
  moreUnknown: boolean,
): boolean {
  const [only, ...rest] = words;
  return (
    !PICKED_BY_SETTINGS.has(program) &&
    !moreUnknown &&
    rest.length === 0 &&
    only?.literal === true &&
    (only.value === '--version' || only.value === '--help')
  );
}

/**
 * Interpreters known here only by the words that print their version or usage: anything else
 * (a script, `-e`, `-p`, `-c`, `-m`, standard input) runs code the guard cannot read. Often a
 * version manager's shim picks which one runs: only where no file it reads lies below the
 * project root (below-root.ts).
 */
export const versionOnly =
  (asks: readonly string[]): ProgramRule =>
  (words, context) => {
    const [only, ...rest] = words;
    if (!context.moreUnknown && rest.length === 0 && only?.literal && asks.includes(only.value)) {
      return settingsBelowRoot(context, INTERPRETER_SETTINGS);
    }
    return `\`${context.program}\` runs code the guard cannot read (only \`${context.program} ${asks.join('`, `')}\` print and exit)`;
  };

/** Interpreters whose version an agent asks for before it starts. */
export const VERSION_ONLY_PROGRAMS: Readonly<Record<string, ProgramRule>> = {
  node: versionOnly(['--version', '-v', '--help', '-h']),
  python3: versionOnly(['--version', '-V', '--help', '-h']),
  python: versionOnly(['--version', '-V', '--help', '-h']),
};
