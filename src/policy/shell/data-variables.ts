import type { ArithmeticExpansionPart, ParameterExpansionPart, TestExpression } from 'unbash';
import type { ShellWord } from './words.js';

/**
 * A `for` loop or `read` sets variables from data: file names, a command's output, a file's
 * lines. bash evaluates a variable's value as code where it reads it as arithmetic or as a name:
 * with x = `a[$(touch src/y)]`, `$((x))`, `$[x]`, `${arr[x]}`, `${s:x}`, `${!x}`, `[[ x -eq 1 ]]`
 * and `[ -v "$x" ]` all run touch. So a line that sets variables from data may not use those;
 * and since a shell that persists between tool calls keeps what an earlier line set, no line may
 * evaluate a name a loop or `read` may set (lower-case letters and digits, variables.ts).
 */
export const DATA_VARIABLES =
  'a `for` loop or `read` sets variables from data, and bash would run a value as code';

/** Where something is evaluated as arithmetic or as a name: the construct, and what it reads. */
export interface Evaluation {
  where: string;
  evaluated: string;
}

/** A substitution that reads a value as arithmetic or as a name, else undefined. */
export function evaluatingExpansion(
  part: ArithmeticExpansionPart | ParameterExpansionPart,
): Evaluation | undefined {
  const where = part.text;
  if (part.type === 'ArithmeticExpansion') return { where, evaluated: where };
  if (part.prefix === '!' && part.operation?.type !== 'Names') {
    return { where, evaluated: part.parameter };
  }
  const index = part.index?.text;
  if (index !== undefined && index !== '@' && index !== '*') return { where, evaluated: index };
  if (part.operation?.type === 'Slice') {
    const { offset, length } = part.operation;
    return { where, evaluated: `${offset.text} ${length?.text ?? ''}` };
  }
  return undefined;
}

/** `[[ a -eq b ]]` (and -ne, -lt, …) evaluates both sides; `-v`/`-R` a subscript. */
export function evaluatingTest(expression: TestExpression): Evaluation | undefined {
  if (expression.type === 'TestBinary' && /^-(eq|ne|lt|le|gt|ge)$/.test(expression.operator)) {
    return {
      where: `[[ … ${expression.operator} … ]]`,
      evaluated: `${expression.left.text} ${expression.right.text}`,
    };
  }
  if (expression.type === 'TestUnary' && /^-[vR]$/.test(expression.operator)) {
    return { where: `[[ ${expression.operator} … ]]`, evaluated: expression.operand.text };
  }
  return undefined;
}

/** `let EXPR` evaluates; `test -v NAME`, `[ -R NAME ]` evaluate the name's subscript. */
export function evaluatingCommand(
  name: string,
  words: readonly ShellWord[],
): Evaluation | undefined {
  const text = words.map((word) => word.text).join(' ');
  if (name === 'let') return { where: 'let', evaluated: text };
  if (name !== 'test' && name !== '[') return undefined;
  const test = words.findIndex((word) => word.literal && /^-[vR]$/.test(word.value));
  if (test === -1) return undefined;
  return { where: `${name} ${words[test]?.value}`, evaluated: words[test + 1]?.text ?? '' };
}

/**
 * Why an evaluation may run data as code whatever else the line does: it names a variable a
 * loop or `read` may have set, in this line or an earlier one of a shell that persists.
 */
export function evaluatesLoopName({ where, evaluated }: Evaluation): string | undefined {
  const name = /(?<![\w$])[a-z][a-z0-9]*(?!\w)|\$\{?([a-z][a-z0-9]*)(?!\w)/.exec(evaluated);
  if (name === null) return undefined;
  return `\`${where}\` evaluates \`${name[1] ?? name[0]}\` as code, a name a \`for\` loop or \`read\` may have set from data (names of upper-case letters are the environment's)`;
}
