import { plainArithmetic, plainName } from './arithmetic.js';
import type { JudgeContext, ProgramRule } from './judge.js';
import { withOptions } from './rules.js';
import { NAME_TESTS } from './test-expression.js';

/**
 * bash's builtins that may run without a plan, each with its grammar. A builtin runs inside the
 * shell: it can assign a variable a later program reads (`printf -v HOME`, `read`, `declare`),
 * and some evaluate their words as arithmetic, where an array subscript runs code
 * (arithmetic.ts). So none of them takes any word: only the uses below, which print or test.
 * Words appended at run time (`xargs test`) are refused: their grammar cannot be checked.
 */

const fromData = (context: JudgeContext): string | undefined =>
  context.moreUnknown
    ? `${context.program} would be given words only known when it runs`
    : undefined;

/** `echo`, `:`, `true`, `false`: their words are only printed, or ignored. */
export const printsWords: ProgramRule = () => undefined;

/**
 * `test EXPR`, `[ EXPR ]`: `-v NAME` and `-R NAME` evaluate a subscript in NAME, so their operand
 * must be a plain name. A word only known when it runs may itself be `-v` (a test's parse depends
 * on its words' values), so the word after it must be known and hold no subscript; and it must
 * stay one word (`"$x"`, not `$x` or a glob, which may become `-v` and a subscript).
 */
export const test: ProgramRule = (words, context) => {
  const refused = fromData(context);
  if (refused) return refused;
  let expression = words;
  if (context.program === '[') {
    const last = words[words.length - 1];
    if (!last?.literal || last.value !== ']') return '`[` without its closing `]`';
    expression = words.slice(0, -1);
  }
  for (const [i, word] of expression.entries()) {
    if (!word.literal && word.single !== true) {
      return `\`${word.text}\` in ${context.program} may become any number of words, an operator such as \`-v\` among them, only known when it runs`;
    }
    const next = expression[i + 1];
    if (word.literal && NAME_TESTS.has(word.value)) {
      if (next !== undefined && !(next.literal && plainName(next.value))) {
        return `\`${word.value} ${next.text}\` in ${context.program} evaluates a subscript as code (write a plain name)`;
      }
    } else if (
      !word.literal &&
      next !== undefined &&
      !(next.literal && !next.value.includes('['))
    ) {
      return `\`${word.text}\` in ${context.program} is only known when it runs and may be \`-v\`, which would evaluate \`${next.text}\` as code`;
    }
  }
  return undefined;
};

/** `printf FORMAT ARG…`; `-v NAME` assigns NAME, and any other option is bash's error. */
export const printf: ProgramRule = (words, context) => {
  const refused = fromData(context);
  if (refused) return refused;
  const first = words[0];
  if (first === undefined || !first.mayBeOption) return undefined;
  if (!first.literal) {
    return `\`printf ${first.text}\`: the format is only known when it runs and could be an option (\`-v NAME\` assigns a variable)`;
  }
  if (first.value === '--') return undefined;
  if (first.value.startsWith('-v')) {
    return '`printf -v` assigns a variable, which a later program may read (HOME, PATH, GIT_*); print instead';
  }
  return `\`printf ${first.value}\`: only \`printf FORMAT ARG…\` is known to only print`;
};

/** `let EXPR…` evaluates each word as arithmetic and may assign. */
export const letRule: ProgramRule = (words, context) => {
  const refused = fromData(context);
  if (refused) return refused;
  const opaque = words.find((word) => !word.literal || !plainArithmetic(word.value));
  return opaque === undefined
    ? undefined
    : `\`let ${opaque.text}\`: let evaluates its words as arithmetic, which may assign or run code (only plain numbers or names)`;
};

/**
 * `declare`/`typeset` with `-p`, `-f` or `-F` print (the named variables, plain names); with
 * none, or with names, they declare or assign.
 */
export const declare: ProgramRule = (words, context) => {
  const refused = fromData(context);
  if (refused) return refused;
  const prints = withOptions(
    { flags: 'pfF' },
    {
      check(parsed) {
        if (parsed.operands.length === 0) return undefined;
        if (!parsed.options.some((o) => ['-p', '-f', '-F'].includes(o.name))) {
          return assigns(context.program);
        }
        const name = parsed.operands.find((word) => !word.literal || !plainName(word.value));
        return name === undefined
          ? undefined
          : `\`${context.program} -p ${name.text}\`: only plain variable names are known`;
      },
    },
  );
  const problem = prints(words, context);
  return problem !== undefined && /is not an option/.test(problem)
    ? `${problem}; ${assigns(context.program)}`
    : problem;
};

/** `export`, `readonly`: alone or with `-p` they print; anything else marks or assigns. */
export const exportRule: ProgramRule = (words, context) => {
  const refused = fromData(context);
  if (refused) return refused;
  return words.every((word) => word.literal && word.value === '-p')
    ? undefined
    : assigns(context.program);
};

/** `cd DIR`: the walk of the line follows it (script.ts); here, its grammar. */
export const cd: ProgramRule = (words, context) => {
  const refused = fromData(context);
  if (refused) return refused;
  const [target, ...rest] = words;
  if (rest.length > 0 || (target !== undefined && (target.mayBeOption || !target.literal))) {
    return '`cd` with more than one literal folder';
  }
  return undefined;
};

export const pwd: ProgramRule = withOptions({ flags: 'LP' }, { maxOperands: 0 });
export const type: ProgramRule = withOptions({ flags: 'afptP' });

/** Why a builtin that assigns variables (or sets the shell's options) is refused. */
export function assigns(program: string): string {
  return `\`${program}\` assigns or declares variables or shell options, which a later program may read (HOME, PATH, GIT_*, PS4); only printing them is known`;
}
