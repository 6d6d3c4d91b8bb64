import type { JudgeContext, ProgramRule } from './judge.js';
import { type OptionSpec, type ParsedOptions, parseOptions } from './options.js';

/** A program none of whose options or operands writes or runs anything: any word goes. */
export const anyArgs: ProgramRule = () => undefined;

/**
 * A program judged by its options: every option on the allowlist, at most `maxOperands`
 * operands, and whatever `check` adds.
 */
export function withOptions(
  spec: OptionSpec,
  more: {
    maxOperands?: number;
    check?: (parsed: ParsedOptions, context: JudgeContext) => string | undefined;
  } = {},
): ProgramRule {
  return (words, context) => {
    if (context.moreUnknown) {
      return `${context.program} would be given arguments only known when it runs`;
    }
    const parsed = parseOptions(context.program, words, spec);
    if (typeof parsed === 'string') return parsed;
    if (more.maxOperands !== undefined && parsed.operands.length > more.maxOperands) {
      return more.maxOperands === 0
        ? `${context.program} with an operand (\`${parsed.operands[0]?.text}\`) changes something`
        : `${context.program} with more than ${more.maxOperands} operand(s) writes the last one`;
    }
    return more.check?.(parsed, context);
  };
}
