import type { ArithmeticExpansionPart, ParameterExpansionPart, TestExpression } from 'unbash';
import type { ShellWord } from './words.js';

/**
 * A `for` loop or `read` sets variables from data: file names, a command's output, a file's
 * lines. bash evaluates a variable's value as code where it reads it as arithmetic or as a name:
 * with x = `a[$(touch src/y)]`, `$((x))`, `$[x]`, `${arr[x]}`, `${s:x}`, `${!x}`, `[[ x -eq 1 ]]`
 * and `[ -v "$x" ]` all run touch. So a line that sets variables from data may not use those.
 */
export const DATA_VARIABLES =
  'a `for` loop or `read` sets variables from data, and bash would run a value as code';

/** Where a substitution reads a value as arithmetic or as a name, else undefined. */
export function evaluatingExpansion(
  part: ArithmeticExpansionPart | ParameterExpansionPart,
): string | undefined {
  if (part.type === 'ArithmeticExpansion') return part.text;
  const whole = part.index?.text === '@' || part.index?.text === '*';
  if (part.prefix === '!' || (part.index !== undefined && !whole)) return part.text;
  if (part.operation?.type === 'Slice') return part.text;
  return undefined;
}

/** `[[ a -eq b ]]` (and -ne, -lt, …) evaluates both sides; `-v`/`-R` a subscript. */
export function evaluatingTest(expression: TestExpression): string | undefined {
  if (expression.type === 'TestBinary' && /^-(eq|ne|lt|le|gt|ge)$/.test(expression.operator)) {
    return `[[ … ${expression.operator} … ]]`;
  }
  if (expression.type === 'TestUnary' && /^-[vR]$/.test(expression.operator)) {
    return `[[ ${expression.operator} … ]]`;
  }
  return undefined;
}

/** `let EXPR` evaluates; `test -v NAME`, `[ -R NAME ]` evaluate the name's subscript. */
export function evaluatingCommand(name: string, words: readonly ShellWord[]): string | undefined {
  if (name === 'let') return 'let';
  if (name !== 'test' && name !== '[') return undefined;
  const test = words.find((word) => word.literal && /^-[vR]$/.test(word.value));
  return test && `${name} ${test.value}`;
}
