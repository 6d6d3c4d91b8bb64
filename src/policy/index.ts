/**
 * `hermes-extensions/policy`: helpers for guard authors. They find the paths a tool call touches
 * (file tools, patches and shell commands) and say whether a shell command only reads. Apart
 * from the root entry, so a host that embeds the runtime does not load the shell parsers.
 */
export { type PatchTargets, readPatch } from './patch.js';
export {
  isWithin,
  type PathBase,
  type ProjectPath,
  resolveProjectPath,
} from './project-paths.js';
export {
  analyzeShell,
  argvScript,
  literalWord,
  parseShell,
  programName,
  READ_ONLY_COMMANDS,
  type RunCommand,
  SHELL_TOOL_NAMES,
  type ShellAnalysis,
  type ShellAnalysisOptions,
  type ShellCommand,
  type ShellCwd,
  type ShellInvocation,
  type ShellScript,
  type ShellWord,
  type ShellWrite,
  STANDARD_STREAMS,
  sedScriptProblem,
  shellCommandOf,
  shellInvocationOf,
  type Unwrapped,
  unwrapCommand,
} from './shell/index.js';
export {
  extractToolPaths,
  patchPaths,
  type WriteTargets,
  writeTargetsOf,
} from './tool-paths.js';
