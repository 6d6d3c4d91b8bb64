import { awkProgramProblem } from './awk-program.js';
import type { ProgramRule } from './judge.js';
import { withOptions } from './rules.js';

/**
 * `awk [-F SEP] [-v NAME=VALUE]… 'PROGRAM' [FILE | NAME=VALUE]…` (also gawk, mawk): the program
 * is given on the command line and read by awk-program.ts; `-f FILE` (a program the guard would
 * have to trust), gawk's `-e`, `-i`, `-l`, `-E` and mawk's `-W` are refused. Operands are files
 * it reads or assignments; neither runs anything.
 */
export const awk: ProgramRule = withOptions(
  { valued: 'Fv', longValued: ['field-separator', 'assign'] },
  {
    check(parsed) {
      const program = parsed.operands[0];
      if (program === undefined) return 'awk without a program';
      if (!program.literal) return `the awk program \`${program.text}\` is only known when it runs`;
      const problem = awkProgramProblem(program.value);
      return problem && `the awk program \`${program.value}\` ${problem}`;
    },
  },
);
