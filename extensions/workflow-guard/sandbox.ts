import {
  mayBeSandboxed,
  type SandboxedShellCall,
  type SandboxOptions,
  sandboxAvailability,
  sandboxedShellCallOf,
  sandboxRefusedWrite,
  sandboxRunning,
  sandboxShellCall,
  withAdvice,
} from 'hermes-extensions/policy';
import type { WorkflowGuardConfig } from './config.js';

/**
 * The guard's sandbox (extensions/workflow-guard/README.md, The sandbox): the project read-only except `allowed_paths`, no
 * network except `sandbox_network`, and unreadable what other extensions keep from sandboxes
 * (`denyRead`: `hermes.sandboxDenyRead`, asked when a call is wrapped or recognised). `wrap`
 * makes a shell call run in it; `holds` says whether a call is exactly the guard's own sandboxed
 * form of some command (made again and compared).
 */
export function guardSandbox(
  root: string,
  config: WorkflowGuardConfig,
  denyRead: () => readonly string[] = () => [],
) {
  const options = (): SandboxOptions => ({
    root,
    writable: config.allowed_paths,
    network: config.sandbox_network,
    denyRead: denyRead(),
  });
  return {
    wrap: (args: Readonly<Record<string, unknown>>): SandboxedShellCall =>
      sandboxShellCall(args, options()),
    // Only what could be a sandbox's line is made again: the rest is not asked for files.
    holds: (args: Readonly<Record<string, unknown>>): boolean =>
      Object.values(args).some((value) => typeof value === 'string' && mayBeSandboxed(value)) &&
      sandboxedShellCallOf(args, options()) !== undefined,
    /** Why a write to `allowed_paths` cannot be judged now, or undefined (extensions/workflow-guard/README.md, The sandbox). */
    busy: (): string | undefined => {
      // Where the sandbox cannot run, no sandboxed command can be running (Windows has neither
      // /proc nor ps, and would refuse every write otherwise).
      if (!sandboxAvailability().available) return undefined;
      const running = sandboxRunning(root);
      if (running === false) return undefined;
      return running
        ? 'a command of this project still runs in the OS sandbox (in the background, or beside this call), and it could turn a folder there into a link elsewhere between this check and the write; wait for it to end, or end it, and write again'
        : 'this system does not say whether a command of this project still runs in the OS sandbox, which could turn a folder there into a link elsewhere between this check and the write';
    },
  };
}

/**
 * The result of a shell call the guard ran in its sandbox, with the guard's advice as its last
 * line when the sandbox refused a write (the output says `Read-only file system`, or EROFS);
 * undefined when it did not, or when the result has no text to add a line to. Without it the
 * model reads only the kernel's error and tries other ways to write (extensions/workflow-guard/README.md, The sandbox).
 */
export function adviseRefusedWrite(
  config: WorkflowGuardConfig,
  result: unknown,
  planned: boolean,
): unknown {
  if (!sandboxRefusedWrite(result)) return undefined;
  const writable = config.allowed_paths.join(', ');
  const advice = planned
    ? `workflow-guard: the OS sandbox refused this write: the command ran before the plan at ${config.plan_path} existed, when only ${writable} (and $TMPDIR) could be written; it exists now, so run the command again.`
    : `workflow-guard: the OS sandbox refused this write: until a plan exists at ${config.plan_path}, a shell command the guard cannot read runs in the OS sandbox, where only ${writable} (and $TMPDIR) can be written. Write the plan first; then the command runs outside this sandbox (protected ground, such as .hermes/ and the agents' hook settings, stays read-only with a plan too).`;
  return withAdvice(result, advice);
}

/** Why a shell call was not run in the sandbox, for the refusal's hint. */
export function notSandboxedHint(
  config: WorkflowGuardConfig,
  attempt: SandboxedShellCall | undefined,
): string {
  if (config.sandbox === 'off' || attempt === undefined) {
    return "With workflow-guard's `sandbox: auto`, such a command would run in the OS sandbox instead (extensions/workflow-guard/README.md, The sandbox).";
  }
  if (attempt.kind === 'unsupported') {
    return `It could not run in the OS sandbox: ${attempt.reason}; to run such commands sandboxed, ${attempt.fix}.`;
  }
  return 'It was made to run in the OS sandbox, but another extension changed the command afterwards.';
}
