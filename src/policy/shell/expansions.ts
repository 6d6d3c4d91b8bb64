import type { ArithmeticExpansionPart, ParameterExpansionPart, Word } from 'unbash';
import { arithmeticProblem, plainArithmetic } from './arithmetic.js';

/**
 * Why an expansion does more than read a variable, or undefined. Substitutions inside it are
 * walked by the caller; this judges what bash does with the expansion itself:
 * - `$(( ))`, `$[ ]`, `${x:OFFSET:LENGTH}` and a subscript `${a[I]}` evaluate text as
 *   arithmetic (arithmetic.ts): only plain numbers and names;
 * - `${x:=v}`, `${x=v}` assign x (a later program may read it: HOME, GIT_DIR, …);
 * - `${!x}` reads the variable x names, subscript included;
 * - `${x@P}` and other transformations expand prompts or quote for eval.
 */
export function expansionProblem(
  part: ArithmeticExpansionPart | ParameterExpansionPart,
): string | undefined {
  if (part.type === 'ArithmeticExpansion') return arithmeticProblem(part.expression, part.text);
  const { index, operation, prefix } = part;
  if (index !== undefined && !['@', '*'].includes(index.text) && !plainWord(index)) {
    return `the subscript of \`${part.text}\` is evaluated as code by bash (write a plain number or name)`;
  }
  if (prefix === '!' && operation?.type !== 'Names' && !['@', '*'].includes(index?.text ?? '')) {
    return `the indirect expansion \`${part.text}\` reads a variable only known when it runs`;
  }
  switch (operation?.type) {
    case 'Default':
      return operation.operator === '=' || operation.operator === ':='
        ? `\`${part.text}\` assigns the variable ${part.parameter}, which a later program may read`
        : undefined;
    case 'Slice':
      if (!plainWord(operation.offset) || (operation.length && !plainWord(operation.length))) {
        return `the arithmetic of \`${part.text}\` is evaluated as code by bash (write plain numbers or names)`;
      }
      return undefined;
    case 'Transform':
    case 'Unknown':
      return `the expansion \`${part.text}\``;
    default:
      return undefined;
  }
}

/** A word that is a plain number or name as written (no quotes, no expansion). */
function plainWord(word: Word): boolean {
  return (word.parts ?? []).every((p) => p.type === 'Literal') && plainArithmetic(word.text);
}
