/** hermes-extensions: intercept, rewrite and block what an AI agent does, as chains of hooks. */

/**
 * ts-pattern's pattern builder, for `when` (docs/chain-semantics.md, Matching calls with `when`): the framework's
 * own copy, so a pattern and the matcher that reads it always agree.
 */
export { P } from 'ts-pattern';
export { HookHandlerError } from './chain/errors.js';
export type {
  ApprovalAsk,
  ChainOutcome,
  ChainStep,
  OnTrace,
  TraceEntry,
} from './chain/outcome.js';
export { ConfigError } from './config/errors.js';
export {
  defineConfig,
  type ExtensionsSection,
  type HermesConfig,
} from './config/schema.js';
export {
  defineExtension,
  type ExtensionDefinition,
  type HermesApi,
} from './extensions/define.js';
export type {
  Diagnostic,
  DiagnosticCode,
  ExtensionInfo,
  ExtensionSource,
  ExtensionStatus,
  HookRegistrationInfo,
} from './extensions/types.js';
/**
 * A lock file several processes share, that knows its owner: a dead owner's lock is taken at
 * once, a live owner's never (see `src/fs/owned-lock.ts`). For extensions that write one file
 * from many processes, as audit-log rotates its file.
 */
export {
  acquireOwnedLock,
  LockTimeoutError,
  type OwnedLock,
  type OwnedLockOptions,
} from './fs/owned-lock.js';
export type { AgentIdentity } from './hooks/agent-identity.js';
export type {
  BeforeLlmCallEvent,
  BeforeLlmCallInput,
  LlmRequest,
  ToolRestriction,
} from './hooks/before-llm-call.js';
export type { OnErrorPolicy } from './hooks/declaration.js';
export { HOOK_NAMES, type HookName } from './hooks/index.js';
export type { InterceptToolCallEvent, ToolCallInput } from './hooks/intercept-tool-call.js';
export type { ChatMessage, ToolCall } from './hooks/messages.js';
export type { RememberScope } from './hooks/remember-scope.js';
export {
  type AnyHookResult,
  type AskResult,
  ask,
  type BlockResult,
  block,
  HookResult,
  type InjectSystemResult,
  type InjectUserResult,
  injectSystem,
  injectUser,
  type Metadata,
  type PassResult,
  pass,
  type RestrictToolsResult,
  type RewriteResult,
  restrictTools,
  rewrite,
} from './hooks/results.js';
export type { SubagentSpawn } from './hooks/subagent-spawn.js';
export type {
  FinalAnswerInput,
  TransformFinalAnswerEvent,
} from './hooks/transform-final-answer.js';
export type {
  ToolResultInput,
  TransformToolResultEvent,
} from './hooks/transform-tool-result.js';
export type { TransformUserInputEvent } from './hooks/transform-user-input.js';
export type {
  HandlerOptions,
  HandlerPhase,
  HookEventMap,
  HookHandler,
  HookResultMap,
  MatchedHookHandler,
  ToolPattern,
} from './hooks/types.js';
export type { ApprovalRequest, Approver, ApproverAnswer, ToolApproval } from './host/approval.js';
export {
  type ApprovalMemory,
  type ApprovalMemoryOptions,
  createApprovalMemory,
  type RememberFor,
} from './host/approval-memory.js';
export { blockedToolResult } from './host/blocked-tool-result.js';
export {
  type ConversationResult,
  type HookOutcomeReport,
  type RunConversationOptions,
  runConversation,
  type ToolCallRecord,
} from './host/run-conversation.js';
export { type SubagentToolDefinition, subagentTool } from './host/subagent.js';
export type {
  ModelClient,
  ModelRequest,
  ModelResponse,
  SubagentOptions,
  SubagentResult,
  ToolContext,
  ToolDefinition,
  ToolSpec,
  Tools,
} from './host/types.js';
export type { Logger } from './log/logger.js';
/**
 * The audit log's hash chain (docs/teams.md, Evidence): how a line is chained and signed, and how
 * a log is verified. extensions/audit-log writes it; `hermes extensions audit verify` checks it.
 */
export {
  CHAIN_FIELDS,
  type ChainHead,
  type ChainOpening,
  type ChainSigner,
  chainLine,
  chainSeqOf,
  ed25519Signer,
  type FileEnd,
  fileEnd,
  lineHash,
} from './observe/audit-chain.js';
export {
  type AuditFileBytes,
  type ChainBreak,
  type ChainVerdict,
  verifyAuditChain,
} from './observe/audit-verify.js';
export {
  OBSERVER_EVENTS,
  type ObserverEvent,
  type ObserverHandler,
  type ObserverPayload,
  TELEMETRY_SCHEMA_VERSION,
} from './observe/events.js';
export { sanitize } from './observe/sanitize.js';
export { redactSecretShapes, SECRET_SHAPES } from './observe/secret-shapes.js';
// Guard-author helpers: their entry is `hermes-extensions/policy` (src/policy/index.ts); these
// root re-exports stay for 0.1 users only.
export {
  /** @deprecated import from `hermes-extensions/policy`; removed in 0.2. */
  analyzeShell,
  /** @deprecated import from `hermes-extensions/policy`; removed in 0.2. */
  argvScript,
  /** @deprecated import from `hermes-extensions/policy`; removed in 0.2. */
  extractToolPaths,
  /** @deprecated import from `hermes-extensions/policy`; removed in 0.2. */
  isWithin,
  /** @deprecated import from `hermes-extensions/policy`; removed in 0.2. */
  literalWord,
  /** @deprecated import from `hermes-extensions/policy`; removed in 0.2. */
  type PatchTargets,
  /** @deprecated import from `hermes-extensions/policy`; removed in 0.2. */
  type PathBase,
  /** @deprecated import from `hermes-extensions/policy`; removed in 0.2. */
  type ProjectPath,
  /** @deprecated import from `hermes-extensions/policy`; removed in 0.2. */
  parseShell,
  /** @deprecated import from `hermes-extensions/policy`; removed in 0.2. */
  patchPaths,
  /** @deprecated import from `hermes-extensions/policy`; removed in 0.2. */
  READ_ONLY_COMMANDS,
  /** @deprecated import from `hermes-extensions/policy`; removed in 0.2. */
  readPatch,
  /** @deprecated import from `hermes-extensions/policy`; removed in 0.2. */
  resolveProjectPath,
  /** @deprecated import from `hermes-extensions/policy`; removed in 0.2. */
  SHELL_TOOL_NAMES,
  /** @deprecated import from `hermes-extensions/policy`; removed in 0.2. */
  type ShellAnalysis,
  /** @deprecated import from `hermes-extensions/policy`; removed in 0.2. */
  type ShellAnalysisOptions,
  /** @deprecated import from `hermes-extensions/policy`; removed in 0.2. */
  type ShellCommand,
  /** @deprecated import from `hermes-extensions/policy`; removed in 0.2. */
  type ShellCwd,
  /** @deprecated import from `hermes-extensions/policy`; removed in 0.2. */
  type ShellInvocation,
  /** @deprecated import from `hermes-extensions/policy`; removed in 0.2. */
  type ShellScript,
  /** @deprecated import from `hermes-extensions/policy`; removed in 0.2. */
  type ShellWord,
  /** @deprecated import from `hermes-extensions/policy`; removed in 0.2. */
  type ShellWrite,
  /** @deprecated import from `hermes-extensions/policy`; removed in 0.2. */
  sedScriptProblem,
  /** @deprecated import from `hermes-extensions/policy`; removed in 0.2. */
  shellCommandOf,
  /** @deprecated import from `hermes-extensions/policy`; removed in 0.2. */
  shellInvocationOf,
  /** @deprecated import from `hermes-extensions/policy`; removed in 0.2. */
  type WriteTargets,
  /** @deprecated import from `hermes-extensions/policy`; removed in 0.2. */
  writeTargetsOf,
} from './policy/index.js';
export { type CreateRuntimeOptions, createRuntime } from './runtime/create-runtime.js';
export { RuntimeClosedError, TurnEndedError, TurnInProgressError } from './runtime/errors.js';
export type { LoadFailure } from './runtime/load-failures.js';
export { type LoadRuntimeOptions, loadRuntime } from './runtime/load-runtime.js';
// Types only: a Runtime or a Turn is made by createRuntime/loadRuntime and runtime.runTurn,
// never with `new` (their constructors take the framework's internal indexes).
export type { Runtime, TurnOptions } from './runtime/runtime.js';
export type { MaybePromise, Turn } from './runtime/turn.js';
export { getTurnState } from './runtime/turn-registry.js';
export {
  inspectProjectTrust,
  isProjectTrusted,
  type ProjectTrust,
  revokeProjectTrust,
  trustProject,
} from './trust/project-trust.js';
