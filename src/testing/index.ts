/** `hermes-extensions/testing`: what tests and demos of extensions and hosts need. */
export { type MemoryLogger, memoryLogger } from './memory-logger.js';
export {
  createScriptedModel,
  type ScriptedModel,
  type ScriptStep,
  scriptedModel,
  toolCall,
} from './scripted-model.js';
