import { isAbsolute } from 'node:path';
import {
  groundSandboxCall,
  groundSandboxedCallOf,
  mayBeSandboxLine,
} from '../sandbox/ground-call.js';
import { heldBySandbox } from '../sandbox/held.js';
import { analyzeShell } from '../shell/analyze.js';
import { COMMAND_KEYS, shellInvocationOf } from '../shell/invocation.js';
import { programName, unwrapCommand } from '../shell/unwrap.js';
import { type ProtectedGround, protectedHit } from './ground.js';

/** What becomes of a shell call the protected-ground rule let through (docs/trust.md, Protected ground). */
export type GroundContainment =
  /** It runs as sent: shown to leave protected ground alone, or already in a sandbox that holds it. */
  | { kind: 'runs' }
  /** It runs in the protected-ground sandbox: these are its arguments. */
  | { kind: 'sandboxed'; args: Record<string, unknown> }
  /** No sandbox can hold it here: why, and what the user can do. */
  | { kind: 'uncontained'; reason: string; fix: string };

/**
 * Programs on the read-only list that take settings from files the agent may write once a plan
 * exists, or with no workflow-guard at all — the project's own `.git/config` (`core.fsmonitor`,
 * diff drivers), `.npmrc`, a version manager's `.tool-versions` — and can be made to run
 * anything by them. The read-only list holds them harmless before a plan, where those files
 * cannot be written; this rule holds with or without a plan, so they run sandboxed.
 */
const RUN_BY_SETTINGS = new Set(['git', 'npm', 'npx', 'node', 'python', 'python3']);

/**
 * A shell call's fate under the rule: one whose every write the shell analysis can list (none
 * on protected ground) and that runs no program the project's files can steer, runs as sent, and
 * so does one already in a sandbox that keeps protected ground read-only (the framework's own,
 * sent back as it was made, or workflow-guard's). Every other runs in the protected-ground
 * sandbox, where protected ground is read-only and nothing else changes.
 *
 * `denyRead` gives the paths no sandboxed command may read (docs/policy.md, The OS sandbox),
 * asked only when a sandbox is made or recognised: a sandbox that holds the call must deny them.
 */
export function containShellCall(
  ground: ProtectedGround,
  args: Readonly<Record<string, unknown>>,
  denyRead: () => readonly string[] = () => [],
): GroundContainment {
  // No argument at all: nothing to run.
  if (Object.keys(args).length === 0) return { kind: 'runs' };
  let denied: readonly string[] | undefined;
  const unread = () => {
    denied ??= denyRead();
    return denied;
  };
  if (mayBeSandboxLine(args) && groundSandboxedCallOf(args, ground, unread()) !== undefined) {
    return { kind: 'runs' };
  }
  const key = COMMAND_KEYS.find((name) => typeof args[name] === 'string');
  if (
    key !== undefined &&
    mayBeSandboxLine(args) &&
    heldBySandbox(args[key] as string, ground, unread())
  ) {
    return { kind: 'runs' };
  }
  if (leavesGroundAlone(ground, args)) return { kind: 'runs' };
  const call = groundSandboxCall(args, ground, unread());
  if (call.kind === 'sandboxed') return { kind: 'sandboxed', args: call.args };
  return { kind: 'uncontained', reason: call.reason, fix: call.fix };
}

function leavesGroundAlone(
  ground: ProtectedGround,
  args: Readonly<Record<string, unknown>>,
): boolean {
  const invocation = shellInvocationOf(args);
  if (invocation.kind === 'unknown') return false;
  for (const run of invocation.runs) {
    const analysis = analyzeShell(run, { root: ground.root, cwd: invocation.cwd });
    if (analysis.kind === 'opaque') return false;
    for (const command of analysis.commands) {
      const runs = unwrapCommand(command);
      if (runs.unclear.length > 0) return false;
      for (const ran of runs.commands) {
        const name = programName(ran.command);
        if (name !== undefined && RUN_BY_SETTINGS.has(name)) return false;
      }
    }
    for (const write of analysis.writes) {
      if (write.cwd === undefined && !isAbsolute(write.path)) return false;
      if (protectedHit(ground, write.path, write.cwd) !== undefined) return false;
    }
  }
  return true;
}
