import { literalWord, type ShellWord } from './words.js';

/**
 * The options a program may be given without a plan: an allowlist, read the way GNU getopt
 * reads a command line (grouped short options `-nv`, values attached `-k2` or following `-k 2`,
 * `--name=value`, options after operands, `--` ending them). An option that is not listed —
 * an abbreviation (`--in` for `--in-place`) included — is refused.
 */
export interface OptionSpec {
  /** Short options without a value, as one string of letters. */
  flags?: string;
  /** Short options that take a value. */
  valued?: string;
  /** Short options whose value is optional and only ever attached (`git status -uno`). */
  optional?: string;
  /** Long options (without `--`) that take no value. */
  long?: readonly string[];
  /** Long options that take a value (`--name=X` or `--name X`). */
  longValued?: readonly string[];
  /** Long options that take the next word as their value, or none when they are the last word. */
  lastDefault?: readonly string[];
  /** `-5` (head, tail, git log) is an option. */
  numeric?: boolean;
}

export interface ParsedOptions {
  /** Options as given (`-n`, `--max-count`), each with its value when it takes one. */
  options: Array<{ name: string; value: ShellWord | undefined }>;
  operands: ShellWord[];
}

/** The words' options and operands, or why they are not all on the allowlist. */
export function parseOptions(
  program: string,
  words: readonly ShellWord[],
  spec: OptionSpec,
): ParsedOptions | string {
  const options: ParsedOptions['options'] = [];
  const operands: ShellWord[] = [];
  const flags = spec.flags ?? '';
  const valued = spec.valued ?? '';
  const optional = spec.optional ?? '';
  let onlyOperands = false;
  for (let i = 0; i < words.length; i++) {
    const word = words[i] as ShellWord;
    if (onlyOperands || !word.mayBeOption) {
      if (!word.literal && !word.pattern) return unknownWord(word);
      operands.push(word);
      continue;
    }
    if (!word.literal) {
      return `\`${word.text}\` is only known when the command runs and could be an option of ${program}`;
    }
    const text = word.value;
    if (text === '--') {
      onlyOperands = true;
      continue;
    }
    if (text === '-') {
      operands.push(word); // standard input
      continue;
    }
    const value = (): ShellWord | string => {
      const next = words[++i];
      if (next === undefined) return `\`${text}\` of ${program} needs a value`;
      return next.literal ? next : unknownWord(next);
    };
    if (text.startsWith('--')) {
      const equals = text.indexOf('=');
      const name = equals === -1 ? text.slice(2) : text.slice(2, equals);
      // A name in both lists (`--porcelain`, `--porcelain=v2`) takes a value only after `=`.
      const flag = spec.long?.includes(name) ?? false;
      const takesValue = spec.longValued?.includes(name) ?? false;
      if (equals !== -1) {
        if (!takesValue) {
          return flag
            ? `\`--${name}\` of ${program} takes no value`
            : notAllowed(program, `--${name}`);
        }
        options.push({ name: `--${name}`, value: literalWord(text.slice(equals + 1)) });
      } else if (flag) {
        options.push({ name: `--${name}`, value: undefined });
      } else if (takesValue && i === words.length - 1 && spec.lastDefault?.includes(name)) {
        options.push({ name: `--${name}`, value: undefined });
      } else if (takesValue) {
        const given = value();
        if (typeof given === 'string') return given;
        options.push({ name: `--${name}`, value: given });
      } else {
        return notAllowed(program, `--${name}`);
      }
      continue;
    }
    if (spec.numeric && /^-\d+$/.test(text)) {
      options.push({ name: text, value: undefined });
      continue;
    }
    for (let j = 1; j < text.length; j++) {
      const letter = text[j] as string;
      if (valued.includes(letter)) {
        const given = j + 1 < text.length ? literalWord(text.slice(j + 1)) : value();
        if (typeof given === 'string') return given;
        options.push({ name: `-${letter}`, value: given });
        break;
      }
      if (optional.includes(letter)) {
        const given = j + 1 < text.length ? literalWord(text.slice(j + 1)) : undefined;
        options.push({ name: `-${letter}`, value: given });
        break;
      }
      if (!flags.includes(letter)) {
        return notAllowed(program, `-${letter}`, text.length > 2 ? text : undefined);
      }
      options.push({ name: `-${letter}`, value: undefined });
    }
  }
  return { options, operands };
}

export function notAllowed(program: string, option: string, within?: string): string {
  const where = within === undefined ? '' : ` (in \`${within}\`)`;
  return `\`${option}\`${where} is not an option of ${program} known to only read`;
}

export function unknownWord(word: ShellWord): string {
  return `\`${word.text}\` is only known when the command runs`;
}
