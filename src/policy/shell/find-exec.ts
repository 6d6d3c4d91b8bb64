import type { JudgeContext } from './judge.js';
import type { ShellWord } from './words.js';

/**
 * find's `-exec PROGRAM ARG… ;` and `-exec PROGRAM ARG… {} +`, from the word after `-exec`:
 * the command is judged as a command of its own (the same rules as on the line), with each
 * `{}` a name only known when it runs (a found path: it begins with a start point, so it is
 * never an option). A word with `{}` inside it (`--file={}`, `sh -c 'cat {}'`) is only known
 * when it runs too. Returns the index of the word that ends the command, or why not.
 * `-execdir` (run from each file's folder), `-ok` and `-okdir` are not read.
 */
export function findExec(
  words: readonly ShellWord[],
  start: number,
  context: JudgeContext,
): number | string {
  let end = start;
  for (; end < words.length; end++) {
    const word = words[end] as ShellWord;
    // `-exec cat {} $x -exec rm …`: a word only known when it runs may be the `;` that ends
    // the command, and what follows another command.
    if (!word.literal) return `\`${word.text}\` in find's \`-exec\` is only known when it runs`;
    if (word.value === ';') break;
    if (word.value === '+' && end > start && isPlaceholder(words[end - 1] as ShellWord)) break;
  }
  if (end >= words.length) return "find's `-exec` without a `;` or `{} +` that ends it";
  if (end === start) return "find's `-exec` without a program";
  const command = words.slice(start, end).map(found);
  const problem = context.inner(command, false);
  return problem === undefined ? end : `${problem} (in find's \`-exec\`)`;
}

function isPlaceholder(word: ShellWord): boolean {
  return word.literal && word.value === '{}';
}

/** A word as find passes it: `{}` replaced by the path it found. */
function found(word: ShellWord): ShellWord {
  if (!word.literal || !word.value.includes('{}')) return word;
  if (word.value === '{}') {
    return { value: '{}', text: '{}', literal: false, mayBeOption: false, pattern: true };
  }
  return {
    value: word.value,
    text: word.text,
    literal: false,
    mayBeOption: word.value.startsWith('-'),
    pattern: false,
  };
}
