import { COMMAND_KEYS, shellInvocationOf } from '../shell/invocation.js';
import type { SandboxOptions } from './settings.js';
import { sandboxCommand, sandboxedCommandOf } from './wrap.js';

/** A shell tool call made to run in the OS sandbox, or why it cannot be. */
export type SandboxedShellCall =
  | {
      kind: 'sandboxed';
      /** The call's arguments with its command line replaced by the sandboxed one. */
      args: Record<string, unknown>;
      /** Writable paths the sandbox left read-only, and why. */
      leftOut: string[];
    }
  | { kind: 'unsupported'; reason: string; fix: string };

/**
 * The arguments of a shell tool call (`{ command, workdir?, timeout?, … }`) with the command line
 * run in the OS sandbox (docs/policy.md, The OS sandbox). Only a call whose command is one command line, with
 * nothing else that changes what runs (no environment, no other shell, no argument the policy does
 * not know: see `shellInvocationOf`), can be; every other argument is kept as it is.
 */
export function sandboxShellCall(
  args: Readonly<Record<string, unknown>>,
  options: SandboxOptions,
): SandboxedShellCall {
  return rewrapShellCall(args, (command) => sandboxCommand(command, options));
}

/** A wrapped command line, or why the command cannot be wrapped. */
type Wrapped =
  | { kind: 'sandboxed'; command: string; leftOut?: string[] }
  | { kind: 'unavailable'; reason: string; fix: string };

/**
 * The arguments of a shell tool call with its one command line replaced by what `wrap` makes of
 * it (a sandbox's command line), every other argument kept; or why it cannot be (as above).
 */
export function rewrapShellCall(
  args: Readonly<Record<string, unknown>>,
  wrap: (command: string) => Wrapped,
): SandboxedShellCall {
  const invocation = shellInvocationOf(args);
  if (invocation.kind === 'unknown') {
    return {
      kind: 'unsupported',
      reason: invocation.reason,
      fix: 'give the command as one command line',
    };
  }
  const keys = COMMAND_KEYS.filter((key) => args[key] !== undefined && args[key] !== null);
  const key = keys[0];
  const command = key === undefined ? undefined : args[key];
  if (keys.length !== 1 || typeof command !== 'string' || invocation.runs.length !== 1) {
    return {
      kind: 'unsupported',
      reason: 'the call does not give its command as one command line',
      fix: 'give the command as one command line (`command`)',
    };
  }
  const sandboxed = wrap(command);
  if (sandboxed.kind === 'unavailable') {
    return { kind: 'unsupported', reason: sandboxed.reason, fix: sandboxed.fix };
  }
  return {
    kind: 'sandboxed',
    args: { ...args, [key as string]: sandboxed.command },
    leftOut: sandboxed.leftOut ?? [],
  };
}

/**
 * The command a sandboxed shell call runs, when `args` are exactly what `sandboxShellCall` makes of
 * that command with these options (made again and compared, never matched by pattern); undefined
 * for any other call.
 */
export function sandboxedShellCallOf(
  args: Readonly<Record<string, unknown>>,
  options: SandboxOptions,
): string | undefined {
  const key = COMMAND_KEYS.find((name) => typeof args[name] === 'string');
  if (key === undefined) return undefined;
  const line = args[key] as string;
  const command = sandboxedCommandOf(line, options);
  if (command === undefined) return undefined;
  // The line is one made for `command` (either maker's, wrap.ts): the call around it must be
  // what wrapping that command's call makes of it.
  const again = rewrapShellCall({ ...args, [key]: command }, () => ({
    kind: 'sandboxed',
    command: line,
  }));
  return again.kind === 'sandboxed' && JSON.stringify(again.args) === JSON.stringify(args)
    ? command
    : undefined;
}
