export {
  resetSandboxAvailability,
  type SandboxAvailability,
  sandboxAvailability,
  sandboxRuntimeCli,
} from './availability.js';
export { configuresLaterProgram } from './dangerous.js';
export {
  type GroundSandboxAvailability,
  groundSandboxAvailability,
  resetGroundSandboxAvailability,
} from './ground-availability.js';
export { groundSandboxCall, groundSandboxedCallOf, mayBeSandboxLine } from './ground-call.js';
export { bwrapSandboxedCallOf } from './held.js';
export { sandboxRefusedWrite, withAdvice } from './refused-write.js';
export { sandboxRunning } from './running.js';
export type { SandboxOptions } from './settings.js';
export { type SandboxedShellCall, sandboxedShellCallOf, sandboxShellCall } from './shell-call.js';
export {
  mayBeSandboxed,
  type SandboxedCommand,
  sandboxCommand,
  sandboxedCommandOf,
} from './wrap.js';
