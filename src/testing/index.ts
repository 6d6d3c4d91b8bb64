/** `hermes-extensions/testing`: what tests and demos of extensions and hosts need. */

export { declaredExtension } from './declared.js';
export type {
  Expected,
  GuardTables,
  HookTable,
  LlmCallCase,
  LlmRequestMatcher,
  MessageMatcher,
  ToolCallCase,
  TurnCase,
  TurnStep,
  UserInputCase,
} from './guard-cases.js';
export {
  GuardCaseFailure,
  type GuardUnderTest,
  runGuardCases,
  type TestFunctions,
  testGuard,
} from './guard-tester.js';
export { type MemoryLogger, memoryLogger } from './memory-logger.js';
export type { GuardCaseResult, StepOutcome } from './run-guard-case.js';
export {
  createScriptedModel,
  type ScriptedModel,
  type ScriptStep,
  scriptedModel,
  toolCall,
} from './scripted-model.js';
