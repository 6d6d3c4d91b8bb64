import type { ArithmeticExpression } from 'unbash';

/**
 * bash evaluates text as arithmetic in many places (`$(( ))`, `$[ ]`, `${x:OFFSET}`, array
 * subscripts, `[[ A -eq B ]]`, `test -v NAME`, `let`), and an array subscript met there is
 * expanded again: `a[$(touch src/x)]` runs `touch` even when the text came quoted, or from a
 * file. So such text passes only when it is a plain integer or a plain variable name; anything
 * else (a subscript, an expansion, an assignment) is only known when it runs.
 *
 * A plain name is evaluated too, with its value read as arithmetic: that is safe only because the
 * analysis lets no command of the line assign a variable (see `assignments.ts`).
 */

/** `12`, `-3`, `n`: what arithmetic may be given. */
export function plainArithmetic(text: string): boolean {
  return /^\s*(-?\d+|[A-Za-z_][A-Za-z0-9_]*)\s*$/.test(text);
}

/** A variable's name with no subscript (`HOME`, `a`, not `a[1]`). */
export function plainName(text: string): boolean {
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(text);
}

/** Operators that compute and assign nothing. */
const PURE_BINARY = new Set([
  '+',
  '-',
  '*',
  '/',
  '%',
  '**',
  '<<',
  '>>',
  '<',
  '<=',
  '>',
  '>=',
  '==',
  '!=',
  '&',
  '|',
  '^',
  '&&',
  '||',
  ',',
]);
const PURE_UNARY = new Set(['+', '-', '!', '~']);

/**
 * Why an arithmetic expression (of `$(( ))`, `$[ ]`) is not known to compute only, or undefined:
 * its operands plain integers or names, its operators ones that assign nothing.
 */
export function arithmeticProblem(
  expression: ArithmeticExpression | undefined,
  text: string,
): string | undefined {
  const opaque = (what: string) =>
    `the arithmetic \`${text}\` ${what}; bash evaluates it as code (write plain numbers or names)`;
  if (expression === undefined) return opaque('cannot be read');
  switch (expression.type) {
    case 'ArithmeticWord':
      if (expression.parts?.some((part) => part.type !== 'Literal')) {
        return opaque(`has \`${expression.value}\`, only known when it runs`);
      }
      return plainArithmetic(expression.value)
        ? undefined
        : opaque(`has \`${expression.value}\`, which is no plain number or name`);
    case 'ArithmeticBinary':
      if (!PURE_BINARY.has(expression.operator)) {
        return opaque(`assigns (\`${expression.operator}\`)`);
      }
      return arithmeticProblem(expression.left, text) ?? arithmeticProblem(expression.right, text);
    case 'ArithmeticUnary':
      if (!PURE_UNARY.has(expression.operator)) {
        return opaque(`assigns (\`${expression.operator}\`)`);
      }
      return arithmeticProblem(expression.operand, text);
    case 'ArithmeticTernary':
      return (
        arithmeticProblem(expression.test, text) ??
        arithmeticProblem(expression.consequent, text) ??
        arithmeticProblem(expression.alternate, text)
      );
    case 'ArithmeticGroup':
      return arithmeticProblem(expression.expression, text);
    default:
      return opaque(`has \`${expression.text}\`, only known when it runs`);
  }
}
