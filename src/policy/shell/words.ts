import { homedir } from 'node:os';
import type { Word, WordPart } from 'unbash';

/**
 * One word of a command as the guard sees it. `value` is what the shell passes on when the word
 * is `literal` (quotes removed, `~/` expanded); otherwise the word is only known when the command
 * runs (a variable, a substitution, a glob, a brace expansion) and `value` is its source text.
 */
export interface ShellWord {
  value: string;
  /** The source text, for messages. */
  text: string;
  literal: boolean;
  /**
   * Whether the expanded word could begin with `-`, i.e. be taken for an option: true for a
   * literal starting with `-`, and for any non-literal word whose first part is not a literal.
   */
  mayBeOption: boolean;
  /** A pattern (glob or brace expansion) and nothing the shell runs or reads from variables. */
  pattern: boolean;
  /**
   * True when the word stays exactly one word whatever it expands to: literal, or every
   * expansion in it quoted. Otherwise (unset) word splitting or a glob may make it none or many.
   */
  single?: boolean;
}

/** Parts that are plain text once quotes are removed. */
const TEXT_PARTS = new Set(['Literal', 'SingleQuoted', 'AnsiCQuoted']);
const PATTERN_PARTS = new Set(['Glob', 'BraceExpansion']);

export function shellWord(word: Word): ShellWord {
  const parts = word.parts;
  if (parts === undefined || parts.every(isText)) {
    // Only an unquoted leading `~` is expanded.
    const tilde = word.text.startsWith('~') ? tildeOf(word.value) : word.value;
    if (tilde === undefined) return dynamic(word, true, false);
    return {
      value: tilde,
      text: word.text,
      literal: true,
      mayBeOption: tilde.startsWith('-'),
      pattern: false,
      single: true,
    };
  }
  const pattern = parts.every((part) => isText(part) || PATTERN_PARTS.has(part.type));
  const first = parts[0] as WordPart;
  const mayBeOption = !isText(first) || textOf(first).startsWith('-') || textOf(first) === '';
  // "$@" and "${a[@]}" are as many words as there are elements, quoted or not.
  const single = parts.every(
    (part) =>
      isText(part) ||
      (QUOTED_PARTS.has(part.type) && !part.text.includes('@')) ||
      NUMBER_PARAMETERS.has(part.text),
  );
  return { ...dynamic(word, mayBeOption, pattern), ...(single && { single }) };
}

/** Parts whose expansions are quoted: they make text, never split or glob. */
const QUOTED_PARTS = new Set(['DoubleQuoted', 'LocaleString']);
/** Parameters that are always one number (`[ $# -gt 0 ]`). */
const NUMBER_PARAMETERS = new Set(['$#', '$?', '$$', '$!']);

function dynamic(word: Word, mayBeOption: boolean, pattern: boolean): ShellWord {
  return { value: word.text, text: word.text, literal: false, mayBeOption, pattern };
}

function isText(part: WordPart): boolean {
  if (TEXT_PARTS.has(part.type)) return true;
  return part.type === 'DoubleQuoted' && part.parts.every((child) => child.type === 'Literal');
}

function textOf(part: WordPart): string {
  if (part.type === 'DoubleQuoted') return part.parts.map((child) => child.text).join('');
  return (part as { value?: string }).value ?? part.text;
}

/**
 * An unquoted leading `~` as the shell expands it: `~` and `~/…` are the user's home; `~name`,
 * `~+` and `~-` depend on the system or the shell's state and are not known (undefined).
 */
function tildeOf(value: string): string | undefined {
  if (!value.startsWith('~')) return value;
  if (value === '~' || value.startsWith('~/')) return homedir() + value.slice(1);
  return undefined;
}

/** A word given as it is (an argument vector's, an option's attached value). */
export function literalWord(value: string): ShellWord {
  return {
    value,
    text: value,
    literal: true,
    mayBeOption: value.startsWith('-'),
    pattern: false,
    single: true,
  };
}
