/**
 * A word quoted for any POSIX shell (bash, dash, zsh): inside single quotes nothing is special, so
 * the only character to escape is the single quote itself. One spelling per word, so a sandboxed
 * command line can be generated again and compared byte for byte (docs/policy.md, The OS sandbox).
 */
export function shellWord(word: string): string {
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

/** The word `shellWord` quoted, or undefined when `quoted` is not exactly such a word. */
export function unquoteShellWord(quoted: string): string | undefined {
  const match = /^'((?:[^']|'\\'')*)'$/.exec(quoted);
  return match?.[1]?.replace(/'\\''/g, "'");
}
