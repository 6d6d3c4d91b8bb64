import { forEachChild, type SyntaxNode, type TestExpression } from 'unbash';
import { plainArithmetic, plainName } from './arithmetic.js';

/** `[[ A -eq B ]]` and the like evaluate A and B as arithmetic (arithmetic.ts). */
export const ARITHMETIC_TESTS = new Set(['-eq', '-ne', '-lt', '-le', '-gt', '-ge']);
/** `-v NAME`, `-R NAME`: NAME may be an array element, whose subscript is evaluated. */
export const NAME_TESTS = new Set(['-v', '-R']);

/**
 * Why a `[[ … ]]` expression may run code, or undefined. Its words are known (script.ts refuses
 * the others); what is judged here is where bash evaluates them: the operands of `-eq`, `-lt`, …
 * must be plain numbers or names, the operand of `-v` and `-R` a plain name.
 */
export function testExpressionProblem(expression: TestExpression): string | undefined {
  switch (expression.type) {
    case 'TestUnary':
      if (NAME_TESTS.has(expression.operator) && !plainName(expression.operand.value)) {
        return `\`[[ ${expression.operator} ${expression.operand.text} ]]\` evaluates a subscript as code (write a plain name)`;
      }
      return undefined;
    case 'TestBinary':
      if (
        ARITHMETIC_TESTS.has(expression.operator) &&
        !(plainArithmetic(expression.left.value) && plainArithmetic(expression.right.value))
      ) {
        return `\`${expression.left.text} ${expression.operator} ${expression.right.text}\` in \`[[ … ]]\` is arithmetic, evaluated as code by bash (write plain numbers or names)`;
      }
      return undefined;
    default: {
      let problem: string | undefined;
      forEachChild(expression as SyntaxNode, (child) => {
        problem ??= testExpressionProblem(child as TestExpression);
      });
      return problem;
    }
  }
}
