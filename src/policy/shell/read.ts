import type { ProgramRule } from './judge.js';
import { withOptions } from './rules.js';
import { variableNameProblem } from './variables.js';

/**
 * `read [-rs] [-d DELIM] [-n N] [-t SECONDS] [-a NAME] [NAME…]`: reads a line of standard input
 * into variables. `-e` (readline, whose init file may bind commands) and `-u FD` are not read.
 */
export const read: ProgramRule = withOptions(
  { flags: 'rs', valued: 'dnNtpa' },
  {
    check(parsed) {
      const names = [
        ...parsed.operands,
        ...parsed.options.filter((o) => o.name === '-a').map((o) => o.value),
      ];
      for (const name of names) {
        if (name === undefined || !name.literal)
          return 'read into a variable only known when it runs';
        const problem = variableNameProblem(name.value);
        if (problem) return `read: ${problem}`;
      }
      return undefined;
    },
  },
);
