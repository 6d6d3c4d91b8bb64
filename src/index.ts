/** hermes-extensions: intercept, rewrite and block what an AI agent does, as chains of hooks. */

export { HookHandlerError } from './chain/errors.js';
export type { ChainOutcome, TraceEntry } from './chain/outcome.js';
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
export type {
  BeforeLlmCallEvent,
  BeforeLlmCallInput,
  LlmRequest,
} from './hooks/before-llm-call.js';
export type { ChainStep, OnErrorPolicy } from './hooks/declaration.js';
export { HOOK_NAMES, type HookName } from './hooks/index.js';
export type { InterceptToolCallEvent, ToolCallInput } from './hooks/intercept-tool-call.js';
export type { ChatMessage, ToolCall } from './hooks/messages.js';
export {
  type AnyHookResult,
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
  type RewriteResult,
  rewrite,
} from './hooks/results.js';
export type { TransformUserInputEvent } from './hooks/transform-user-input.js';
export type {
  HandlerOptions,
  HandlerPhase,
  HookEventMap,
  HookHandler,
  HookResultMap,
  ToolPattern,
} from './hooks/types.js';
export { blockedToolResult } from './host/blocked-tool-result.js';
export {
  type ConversationResult,
  type HookOutcomeReport,
  type RunConversationOptions,
  runConversation,
  type ToolCallRecord,
} from './host/run-conversation.js';
export type {
  ModelClient,
  ModelRequest,
  ModelResponse,
  ToolDefinition,
  ToolSpec,
  Tools,
} from './host/types.js';
export type { Logger } from './log/logger.js';
export {
  OBSERVER_EVENTS,
  type ObserverEvent,
  type ObserverHandler,
  type ObserverPayload,
  TELEMETRY_SCHEMA_VERSION,
} from './observe/events.js';
export { sanitize } from './observe/sanitize.js';
export { type PatchTargets, readPatch } from './policy/patch.js';
export {
  isWithin,
  type PathBase,
  type ProjectPath,
  resolveProjectPath,
} from './policy/project-paths.js';
export {
  analyzeShell,
  argvScript,
  literalWord,
  parseShell,
  READ_ONLY_COMMANDS,
  SHELL_TOOL_NAMES,
  type ShellAnalysis,
  type ShellAnalysisOptions,
  type ShellCommand,
  type ShellCwd,
  type ShellInvocation,
  type ShellScript,
  type ShellWord,
  type ShellWrite,
  sedScriptProblem,
  shellCommandOf,
  shellInvocationOf,
} from './policy/shell/index.js';
export {
  extractToolPaths,
  patchPaths,
  type WriteTargets,
  writeTargetsOf,
} from './policy/tool-paths.js';
export { type CreateRuntimeOptions, createRuntime } from './runtime/create-runtime.js';
export { RuntimeClosedError, TurnEndedError, TurnInProgressError } from './runtime/errors.js';
export type { LoadFailure } from './runtime/load-failures.js';
export { type LoadRuntimeOptions, loadRuntime } from './runtime/load-runtime.js';
export { Runtime, type TurnOptions } from './runtime/runtime.js';
export { type MaybePromise, Turn } from './runtime/turn.js';
export { getTurnState } from './runtime/turn-registry.js';
export type {
  Diagnostic,
  DiagnosticCode,
  ExtensionInfo,
  ExtensionSource,
  ExtensionStatus,
  HookRegistrationInfo,
} from './runtime/types.js';
export {
  inspectProjectTrust,
  isProjectTrusted,
  type ProjectTrust,
  revokeProjectTrust,
  trustProject,
} from './trust/project-trust.js';
