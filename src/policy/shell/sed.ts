import type { ProgramRule } from './judge.js';
import { withOptions } from './rules.js';

/**
 * `sed` without `-i` prints; its script can still write (`w`, `W`, `s///w`) or run commands
 * (`e`, `s///e`), and `-f FILE` reads a script the guard would have to trust. So the script must
 * be given on the command line and is read command by command, GNU sed's way; anything the
 * reader does not know is refused.
 */
export const sed: ProgramRule = withOptions(
  {
    flags: 'nErsuz',
    valued: 'el',
    long: [
      'quiet',
      'silent',
      'regexp-extended',
      'separate',
      'unbuffered',
      'null-data',
      'posix',
      'debug',
      'sandbox',
    ],
    longValued: ['expression', 'line-length'],
  },
  {
    check(parsed) {
      const scripts = parsed.options
        .filter((option) => option.name === '-e' || option.name === '--expression')
        .map((option) => option.value?.value ?? '');
      if (scripts.length === 0) {
        const first = parsed.operands[0];
        if (first === undefined) return 'sed without a script';
        if (!first.literal) return `the sed script \`${first.text}\` is only known when it runs`;
        scripts.push(first.value);
      }
      for (const script of scripts) {
        const problem = sedScriptProblem(script);
        if (problem) return `the sed script \`${script}\` ${problem}`;
      }
      return undefined;
    },
  },
);

/** Commands that take no argument, or only a number (`l 5`, `q 1`). */
const PLAIN = new Set(['=', 'd', 'D', 'g', 'G', 'h', 'H', 'n', 'N', 'p', 'P', 'x', 'z', 'F']);
const NUMBERED = new Set(['l', 'q', 'Q', 'L']);

/** Why a sed script is not known to only read, or undefined. */
export function sedScriptProblem(script: string): string | undefined {
  const reader = new ScriptReader(script);
  try {
    reader.script();
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

class ScriptReader {
  private at = 0;

  constructor(private readonly text: string) {}

  script(): void {
    for (;;) {
      this.skip(' \t\n;');
      if (this.at >= this.text.length) return;
      this.command();
    }
  }

  private command(): void {
    if (this.peek() === '}') {
      this.at++;
      return;
    }
    if (this.peek() === '#') {
      this.toLineEnd();
      return;
    }
    this.address();
    this.skip(' \t');
    if (this.peek() === ',') {
      this.at++;
      this.skip(' \t');
      if (this.peek() === '+' || this.peek() === '~') this.at++;
      this.address();
      this.skip(' \t');
    }
    while (this.peek() === '!') {
      this.at++;
      this.skip(' \t');
    }
    const name = this.text[this.at++];
    if (name === undefined) throw new Error('ends after an address');
    if (name === '{') return;
    if (PLAIN.has(name)) {
      this.end();
      return;
    }
    if (NUMBERED.has(name)) {
      this.skip(' \t');
      this.digits();
      this.end();
      return;
    }
    switch (name) {
      case 's':
        this.substitute();
        return;
      case 'y':
        this.delimited(2);
        this.end();
        return;
      case ':':
      case 'b':
      case 't':
      case 'T':
      case 'v':
        // GNU sed ends a label (and `v`'s version) at white space or `;`: what follows is the
        // next command (`:x w file` is a label and a write).
        this.skip(' \t');
        while (this.at < this.text.length && !' \t\n;'.includes(this.peek())) this.at++;
        return;
      case 'a':
      case 'i':
      case 'c':
        this.text_();
        return;
      case 'r':
      case 'R':
        // Reads a file into the output: reading is allowed. The name runs to the end of the line.
        this.toLineEnd();
        return;
      case 'w':
      case 'W':
        throw new Error(`writes a file (the \`${name}\` command)`);
      case 'e':
        throw new Error('runs a command (the `e` command)');
      default:
        throw new Error(`has the command \`${name}\`, which the guard does not know`);
    }
  }

  private substitute(): void {
    this.delimited(2);
    for (;;) {
      const flag = this.peek();
      if (flag !== '' && 'gpiImM0123456789'.includes(flag)) {
        this.at++;
        continue;
      }
      if (flag === 'w') throw new Error('writes a file (the `w` flag of `s`)');
      if (flag === 'e') throw new Error('runs a command (the `e` flag of `s`)');
      this.end();
      return;
    }
  }

  /**
   * `count` parts separated by the delimiter that follows (`s/a/b/`: two after `s`), a backslash
   * escaping the next character. GNU sed does not treat `[…]` specially here and other seds do:
   * a bracket expression holding the delimiter would be read two ways, so it is refused.
   */
  private delimited(count: number): void {
    const delimiter = this.text[this.at++];
    if (delimiter === undefined || delimiter === '\n' || delimiter === '\\') {
      throw new Error('has a command without its delimiter');
    }
    for (let part = 0; part < count; part++) {
      let bracket = false;
      for (;;) {
        const char = this.text[this.at++];
        if (char === undefined) throw new Error('has an unterminated command');
        if (char === '\\') {
          this.at++;
          continue;
        }
        if (char === '\n') throw new Error('has a line break inside a command');
        if (char === '[') bracket = true;
        if (char === ']') bracket = false;
        if (char === delimiter) {
          if (bracket) throw new Error(`has \`${delimiter}\` inside a bracket expression`);
          break;
        }
      }
    }
  }

  private address(): void {
    const char = this.peek();
    if (char === '$') {
      this.at++;
    } else if (/[0-9]/.test(char)) {
      this.digits();
      if (this.peek() === '~') {
        this.at++;
        this.digits();
      }
    } else if (char === '/' || char === '\\') {
      if (char === '\\') this.at++;
      this.delimited(1);
      while ('IM'.includes(this.peek()) && this.peek() !== '') this.at++;
    }
  }

  /** `a text`, `a\` + lines: text to the end of the line, a trailing backslash continuing it. */
  private text_(): void {
    while (this.at < this.text.length) {
      const char = this.text[this.at++];
      if (char === '\\') this.at++;
      else if (char === '\n') return;
    }
  }

  private end(): void {
    this.skip(' \t');
    const char = this.peek();
    if (char === '' || char === ';' || char === '\n' || char === '}' || char === '#') return;
    throw new Error(`has \`${char}\` where a command should end`);
  }

  private digits(): void {
    while (/[0-9]/.test(this.peek())) this.at++;
  }

  private toLineEnd(): void {
    while (this.at < this.text.length && this.text[this.at] !== '\n') this.at++;
  }

  private skip(chars: string): void {
    while (this.at < this.text.length && chars.includes(this.text[this.at] as string)) this.at++;
  }

  private peek(): string {
    return this.text[this.at] ?? '';
  }
}
