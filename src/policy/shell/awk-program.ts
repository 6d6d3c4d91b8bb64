import { BUILTINS, FORBIDDEN_NAMES, KEYWORDS, OPERATORS } from './awk-words.js';

/**
 * An awk program read token by token, the way gawk, mawk and the one true awk read it, to tell
 * whether it only computes and prints to standard output. Refused: `system()`, any pipe (`|`,
 * `|&`: a command printed to or read from), output redirection in `print`/`printf` (`>`, `>>`
 * outside parentheses), `getline` from a file (`<`) or anything but a plain variable, calls of
 * functions that are neither built-in readers nor defined in the program, gawk's `@` (includes,
 * extensions, indirect calls), `::` names and the arrays that name functions (`PROCINFO`,
 * `SYMTAB`, `FUNCTAB`). Where the awks could split the text differently (a `/` inside brackets
 * in a regular expression, a line continued inside a string), the program is refused too.
 */
export function awkProgramProblem(program: string): string | undefined {
  try {
    new Reader(program).read();
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

type Kind = 'name' | 'number' | 'string' | 'regex' | 'op' | 'newline';
interface Token {
  kind: Kind;
  text: string;
  /** A space, tab or continued line came before it (`f (x)` is no call of a user function). */
  spaced: boolean;
}

class Reader {
  private at = 0;
  private readonly tokens: Token[] = [];
  /** For each open `(`: whether it opened the header of `if`, `while` or `for`. */
  private readonly parens: boolean[] = [];
  /** The last `)` closed such a header: a statement, maybe a regular expression, follows. */
  private afterHeader = false;

  constructor(private readonly text: string) {}

  read(): void {
    this.tokenize();
    const defined = new Set<string>();
    this.tokens.forEach((token, i) => {
      const next = this.tokens[i + 1];
      if ((token.text === 'function' || token.text === 'func') && next?.kind === 'name') {
        defined.add(next.text);
      }
    });
    this.tokens.forEach((token, i) => {
      if (token.kind !== 'name') return;
      const forbidden = FORBIDDEN_NAMES[token.text];
      if (forbidden) throw new Error(forbidden);
      const next = this.tokens[i + 1];
      // A name right before `(` calls a function (with a space between, a variable is joined
      // to what the parentheses hold); built-in functions may be called with a space too.
      const call = next?.text === '(' && !next.spaced;
      if (call && !KEYWORDS.has(token.text) && !BUILTINS.has(token.text)) {
        const previous = this.tokens[i - 1]?.text;
        const declares = previous === 'function' || previous === 'func';
        if (!declares && !defined.has(token.text)) {
          throw new Error(`calls \`${token.text}\`, which is not a function known to only compute`);
        }
      }
      if (token.text === 'getline') this.getline(i);
      if (token.text === 'print' || token.text === 'printf') this.print(i);
    });
  }

  /** `getline` and `getline NAME` read the next input record; `getline < FILE` reads a file. */
  private getline(i: number): void {
    let j = i + 1;
    const skipNewlines = () => {
      while (this.tokens[j]?.kind === 'newline') j++;
    };
    skipNewlines();
    if (this.tokens[j]?.kind === 'name' && !KEYWORDS.has(this.tokens[j]?.text ?? '')) j++;
    skipNewlines();
    const next = this.tokens[j];
    if (next === undefined) return;
    if (next.text === '<') throw new Error('reads a file (`getline <`)');
    if (!['&&', '||', ')', ';', '}', '>', '==', '!=', '>='].includes(next.text)) {
      throw new Error(
        `has \`getline\` followed by \`${next.text}\`, which the guard does not read`,
      );
    }
  }

  /** A `>` or `>>` outside parentheses in `print`/`printf` writes to a file. */
  private print(i: number): void {
    let depth = 0;
    for (let j = i + 1; j < this.tokens.length; j++) {
      const token = this.tokens[j] as Token;
      const text = token.text;
      if (text === '(' || text === '[') depth++;
      else if (text === ')' || text === ']') depth--;
      if (depth < 0) return;
      if (depth > 0) continue;
      if (text === ';' || text === '}') return;
      if (token.kind === 'newline' && this.endsOperand(this.tokens[j - 1] as Token)) return;
      if (text === '>' || text === '>>')
        throw new Error(`writes a file (\`${text}\` in \`print\`)`);
    }
  }

  private endsOperand(token: Token): boolean {
    if (token.kind === 'name')
      return (
        !KEYWORDS.has(token.text) ||
        token.text === 'print' ||
        token.text === 'printf' ||
        token.text === 'getline'
      );
    if (token.kind === 'op') return [')', ']', '++', '--'].includes(token.text);
    return token.kind !== 'newline';
  }

  private tokenize(): void {
    const text = this.text;
    // Awks differ on a carriage return (white space, a line's end, an error): none is read.
    if (text.includes('\r')) throw new Error('has a carriage return');
    let spaced = false;
    while (this.at < text.length) {
      const c = text[this.at] as string;
      if (c === ' ' || c === '\t') {
        this.at++;
        spaced = true;
      } else if (c === '\\' && text[this.at + 1] === '\n') {
        this.at += 2;
        spaced = true;
      } else if (c === '#') {
        while (this.at < text.length && text[this.at] !== '\n') this.at++;
      } else {
        this.push(this.token(c), spaced);
        spaced = false;
      }
    }
  }

  private push(token: Omit<Token, 'spaced'>, spaced: boolean): void {
    if (token.text === '(') {
      const previous = this.tokens.at(-1)?.text ?? '';
      this.parens.push(['if', 'while', 'for'].includes(previous));
    }
    this.afterHeader = token.text === ')' && this.parens.pop() === true;
    this.tokens.push({ ...token, spaced });
  }

  private token(c: string): Omit<Token, 'spaced'> {
    const text = this.text;
    const start = this.at;
    if (c === '\n') {
      this.at++;
      return { kind: 'newline', text: '\n' };
    }
    if (c === '"') return { kind: 'string', text: this.string() };
    if (c === '/' && this.regexMayStart()) return { kind: 'regex', text: this.regex() };
    if (/[A-Za-z_]/.test(c)) {
      const name = /^[A-Za-z_][A-Za-z0-9_]*/.exec(text.slice(start))?.[0] as string;
      this.at += name.length;
      return { kind: 'name', text: name };
    }
    if (/[0-9.]/.test(c) && /^\.?[0-9]/.test(text.slice(start, start + 2))) {
      // Letters after a number are a name of their own (`2system(…)` calls system).
      const number = /^([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?/.exec(text.slice(start))?.[0];
      this.at += (number as string).length;
      return { kind: 'number', text: number as string };
    }
    const operator = OPERATORS.find((op) => text.startsWith(op, start));
    if (operator === undefined) throw new Error(`has \`${c}\`, which the guard does not read`);
    if (operator === '::') throw new Error('has a qualified name (`::`)');
    if (operator === '|' || operator === '|&') {
      throw new Error(`runs a command (\`${operator}\` pipes to or from one)`);
    }
    this.at += operator.length;
    return { kind: 'op', text: operator };
  }

  /** `/` begins a regular expression where an operand is expected, else it divides. */
  private regexMayStart(): boolean {
    const previous = this.tokens.at(-1);
    if (previous === undefined || previous.kind === 'newline') return true;
    if (previous.kind === 'name') {
      if (previous.text === 'getline')
        throw new Error('has `getline /`, which the guard does not read');
      return KEYWORDS.has(previous.text);
    }
    if (previous.kind !== 'op') return false;
    if (previous.text === ')') return this.afterHeader;
    return ![']', '++', '--'].includes(previous.text);
  }

  private string(): string {
    const text = this.text;
    const start = this.at++;
    while (this.at < text.length) {
      const c = text[this.at] as string;
      if (c === '\n') throw new Error('has a string that does not end on its line');
      if (c === '\\') {
        if (text[this.at + 1] === '\n') {
          throw new Error('has a string continued on the next line');
        }
        this.at += 2;
        continue;
      }
      this.at++;
      if (c === '"') return text.slice(start, this.at);
    }
    throw new Error('has a string that does not end');
  }

  /**
   * A regular expression ends at the first `/` that is neither escaped nor in brackets (gawk);
   * some awks end it at a `/` in brackets too, so such a `/` is refused.
   */
  private regex(): string {
    const text = this.text;
    const start = this.at++;
    let bracket = -1; // where the open bracket expression's content starts
    while (this.at < text.length) {
      const c = text[this.at] as string;
      if (c === '\n') throw new Error('has a regular expression that does not end on its line');
      if (c === '\\') {
        if (text[this.at + 1] === '\n') {
          throw new Error('has a regular expression continued on the next line');
        }
        this.at += 2;
        continue;
      }
      if (bracket === -1) {
        if (c === '/') {
          this.at++;
          return text.slice(start, this.at);
        }
        if (c === '[') {
          this.at++;
          if (text[this.at] === '^') this.at++;
          if (text[this.at] === ']') this.at++; // a `]` first is a member
          bracket = this.at;
          continue;
        }
      } else {
        if (c === '/')
          throw new Error('has a `/` in brackets in a regular expression (write `\\/`)');
        if (c === '[' && '.='.includes(text[this.at + 1] ?? '')) {
          throw new Error('has a collating element in a regular expression');
        }
        if (c === '[' && text[this.at + 1] === ':') {
          // `[:alpha:]` inside brackets ends at its own `:]`.
          const close = text.indexOf(':]', this.at + 2);
          if (close === -1) throw new Error('has an unclosed class in a regular expression');
          const inner = text.slice(this.at, close);
          if (inner.includes('/') || inner.includes('\n')) {
            throw new Error('has a `/` in brackets in a regular expression (write `\\/`)');
          }
          this.at = close + 2;
          continue;
        }
        if (c === ']') bracket = -1;
      }
      this.at++;
    }
    throw new Error('has a regular expression that does not end');
  }
}
