import {
  cd,
  declare,
  exportRule,
  letRule,
  printf,
  printsWords,
  pwd,
  test,
  type,
} from './builtins.js';
import type { ProgramRule } from './judge.js';

/** bash's builtins on the read-only list, each with its grammar (builtins.ts). */
export const BUILTINS: Readonly<Record<string, ProgramRule>> = {
  echo: printsWords,
  ':': printsWords,
  true: printsWords,
  false: printsWords,
  test,
  '[': test,
  printf,
  pwd,
  type,
  cd, // followed by the walk of the line (script.ts)
  let: letRule,
  declare,
  typeset: declare,
  export: exportRule,
  readonly: exportRule,
};

/**
 * Builtins that always assign (or set the shell's options): not on the list, named here so the
 * refusal says why.
 */
export const ASSIGNING_BUILTINS: ReadonlySet<string> = new Set([
  'local',
  'mapfile',
  'readarray',
  'getopts',
  'unset',
  'set',
  'shopt',
]);
