import { READ_ONLY_PROGRAMS } from './programs.js';

export {
  analyzeShell,
  type ShellAnalysis,
  type ShellAnalysisOptions,
  type ShellWrite,
  STANDARD_STREAMS,
} from './analyze.js';
export {
  SHELL_TOOL_NAMES,
  type ShellInvocation,
  shellCommandOf,
  shellInvocationOf,
} from './invocation.js';
export {
  argvScript,
  parseShell,
  type ShellCommand,
  type ShellCwd,
  type ShellScript,
} from './script.js';
export { sedScriptProblem } from './sed.js';
export { programName, type RunCommand, type Unwrapped, unwrapCommand } from './unwrap.js';
export { literalWord, type ShellWord } from './words.js';

/** The programs a shell command may run without a plan (each with rules for its options). */
export const READ_ONLY_COMMANDS: readonly string[] = Object.keys(READ_ONLY_PROGRAMS);
