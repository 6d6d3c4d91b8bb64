/**
 * `hermes-extensions/policy`: helpers for guard authors. They find the paths a tool call touches
 * (file tools, patches and shell commands), say whether a shell command only reads, and run a
 * shell call in the OS sandbox (docs/policy.md, The OS sandbox), and
 * keep budgets of tool calls and model requests per turn, session or window (docs/policy.md,
 * Budgets), and map
 * every string of a tool result (`mapStrings`, for redaction), and judge a call against protected
 * ground (docs/trust.md). Apart from the root entry, so importing it does not load the shell
 * parsers; a runtime loads them when it is built, for its protected-ground rule.
 */
export {
  type ArgumentText,
  type ArgumentTexts,
  argumentTexts,
  looksLikePath,
} from './argument-texts.js';
export {
  type BudgetOwner,
  type BudgetScope,
  type CountedTools,
  type ModelCallBudgetEvent,
  type ModelCallBudgetOptions,
  modelCallBudget,
  type RefusalLimitEvent,
  type RefusalLimitOptions,
  type RefusalLimitOwner,
  refusalLimit,
  type ToolBudgetExceeded,
  type ToolCallBudgetEvent,
  type ToolCallBudgetOptions,
  type ToolCallBudgetResult,
  toolCallBudget,
} from './budget/index.js';
export {
  type PatchLink,
  type PatchMove,
  type PatchReading,
  type PatchTargets,
  readPatch,
} from './patch.js';
export {
  gitApplyCommand,
  type PatchCommand,
  patchCommand,
  readPatchFile,
} from './patch-command.js';
export { type CallLinks, callLinks, type MadeLink } from './patch-links.js';
export { type PathReadings, pathReadings } from './path-readings.js';
export {
  isWithin,
  type PathBase,
  type ProjectPath,
  projectEntryNames,
  resolveProjectPath,
} from './project-paths.js';
export {
  type GroundRefusal,
  judgeGround,
  type ProtectedGround,
  type ProtectedHit,
  type ProtectedPlace,
  protectedGround,
  protectedHermesCommand,
  protectedHit,
} from './protected/index.js';
export { mapStrings } from './result-strings.js';
export {
  bwrapSandboxedCallOf,
  configuresLaterProgram,
  type GroundSandboxAvailability,
  groundSandboxAvailability,
  groundSandboxCall,
  groundSandboxedCallOf,
  mayBeSandboxed,
  mayBeSandboxLine,
  resetGroundSandboxAvailability,
  resetSandboxAvailability,
  type SandboxAvailability,
  type SandboxedCommand,
  type SandboxedShellCall,
  type SandboxOptions,
  sandboxAvailability,
  sandboxCommand,
  sandboxedCommandOf,
  sandboxedShellCallOf,
  sandboxRefusedWrite,
  sandboxRunning,
  sandboxRuntimeCli,
  sandboxShellCall,
  withAdvice,
} from './sandbox/index.js';
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
export { normalizeToolName, READER_TOOL_NAMES, WRITER_TOOL_NAMES } from './tool-names.js';
export {
  extractToolPaths,
  patchPaths,
  type WriteTargets,
  writeTargetsOf,
} from './tool-paths.js';
