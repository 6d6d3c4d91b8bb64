import { type ChainOutcome, FRAMEWORK_NAME } from '../chain/outcome.js';
import { SandboxDenyRead } from '../extensions/sandbox-deny-read.js';
import type { ToolCallInput } from '../hooks/intercept-tool-call.js';
import { type ProtectedGround, protectedGround } from '../policy/protected/ground.js';
import { groundKindOf } from '../policy/protected/kinds.js';
import { frameworkRefusal } from './tool-call-refusals.js';

type Args = Record<string, unknown>;
type Judge = typeof import('../policy/protected/judge.js');
type Refused = ChainOutcome<Args>;
type Passed = Extract<Refused, { blocked: false }>;

/** The judge, once imported: shared by every runtime of the process. */
let loadedJudge: Judge | undefined;
let judgeLoading: Promise<Judge> | undefined;

/**
 * Imports the rule's judge, once per process. The runtime's builders wait for it before they
 * hand a runtime out (assemble.ts), so a chain that is synchronous stays so from the first call;
 * a load that fails is met by every call that needs the judge, which is refused.
 */
export function loadGroundJudge(): Promise<Judge> {
  judgeLoading ??= import('../policy/protected/judge.js').then((judge) => {
    loadedJudge = judge;
    return judge;
  });
  return judgeLoading;
}

/**
 * The framework's own rule on every tool call, before any handler (docs/trust.md, Protected
 * ground): an agent may not change what decides its guards — the project's hermes config, the
 * agents' hook settings, `$HERMES_HOME` — nor run the commands that do. Every host runs tool
 * calls through `Turn.interceptToolCall`, so every host enforces it; no config turns it off.
 *
 * The judge reads shell commands with the shell parser, which the root entry does not load
 * (a host that embeds the runtime pays for it when a runtime is built, not at import). A tool
 * known to only read is decided without it.
 */
export class GroundRule {
  readonly #ground: ProtectedGround;
  readonly #noSandbox: 'refuse' | 'run';
  readonly #denyRead: SandboxDenyRead;

  /**
   * `noSandbox`: what becomes of a shell command that needs the sandbox where none can run
   * (`extensions.no_sandbox`, read from the user's own config only: load-runtime.ts).
   * `denyRead`: what extensions keep from sandboxed commands (`hermes.denySandboxRead`), hidden
   * in the sandbox this rule makes and required of one that already holds the call.
   * `userCode`: the user's own extensions the user's config names (ground.ts, `protectedGround`).
   */
  constructor(
    projectRoot: string,
    noSandbox: 'refuse' | 'run' = 'refuse',
    denyRead: SandboxDenyRead = new SandboxDenyRead(),
    userCode: readonly string[] = [],
  ) {
    this.#ground = protectedGround(projectRoot, process.env, userCode);
    this.#noSandbox = noSandbox;
    this.#denyRead = denyRead;
    // Started here too, for a runtime made without the builders.
    loadGroundJudge().catch(() => undefined);
  }

  /**
   * Whether the rule looks at a call of this tool at all: not at a tool known to only read,
   * whose call it neither refuses nor contains (`refusal`, `contained`). Fixed by the name.
   */
  judges(toolName: string): boolean {
    return groundKindOf(toolName) !== 'reader';
  }

  /** The refusal of a call that would change protected ground; undefined when it may go on. */
  refusal(call: ToolCallInput): Refused | undefined | Promise<Refused | undefined> {
    if (groundKindOf(call.toolName) === 'reader') return undefined;
    if (loadedJudge !== undefined) return this.#judged(loadedJudge, call);
    return loadGroundJudge().then(
      (loaded) => this.#judged(loaded, call),
      (error: unknown) =>
        refused(call, `the protected-ground rule could not be loaded: ${String(error)}`),
    );
  }

  /**
   * The outcome of a call the handlers let through, as it is to run: a shell call the rule
   * cannot show to leave protected ground alone runs in the protected-ground sandbox
   * (docs/trust.md, Protected ground), and where none can run it is refused — unless the user's
   * own config accepts running it unsandboxed (`extensions.no_sandbox: run`). Judged after every
   * handler, on the command that will run: a handler's rewrite (workflow-guard's sandbox before a
   * plan) is what the sandbox wraps, or what already holds protected ground.
   */
  contained(call: ToolCallInput, outcome: Refused): Refused | Promise<Refused> {
    if (outcome.blocked || groundKindOf(call.toolName) !== 'shell') return outcome;
    if (loadedJudge !== undefined) return this.#contained(loadedJudge, call, outcome);
    return loadGroundJudge().then(
      (loaded) => this.#contained(loaded, call, outcome),
      (error: unknown) =>
        refused(call, `the protected-ground rule could not be loaded: ${String(error)}`),
    );
  }

  #contained(judge: Judge, call: ToolCallInput, outcome: Passed): Refused {
    let found: ReturnType<Judge['containShellCall']>;
    try {
      found = judge.containShellCall(this.#ground, outcome.value, () => this.#denyRead.paths());
    } catch (error) {
      return refused(
        call,
        `the protected-ground rule failed on this call (${error instanceof Error ? error.message : String(error)}), so it is refused`,
      );
    }
    if (found.kind === 'runs') return outcome;
    if (found.kind === 'sandboxed') {
      // A person asked is shown, and remembers an answer for, the command the handlers made.
      const ask =
        outcome.ask === undefined ? {} : { ask: { ...outcome.ask, toolArgs: outcome.value } };
      return {
        ...outcome,
        ...ask,
        value: found.args,
        changed: true,
        metadata: { ...outcome.metadata, [FRAMEWORK_NAME]: SANDBOXED },
      };
    }
    if (this.#noSandbox === 'run') return outcome;
    return refused(
      call,
      `this shell command cannot be shown to leave protected ground alone (what decides the guards: the hermes config, the agents' hook settings, $HERMES_HOME), and it cannot run in the OS sandbox that would keep that ground read-only: ${found.reason}. To run such commands, ${found.fix}; or, to accept the risk and run them unsandboxed, the user sets \`extensions.no_sandbox: run\` in their own $HERMES_HOME/config.yaml (docs/trust.md, Protected ground). Commands that only read (ls, cat, grep, …) run as they are`,
    );
  }

  #judged(judge: Judge, call: ToolCallInput): Refused | undefined {
    let found: ReturnType<Judge['judgeGround']>;
    try {
      found = judge.judgeGround(this.#ground, call.toolName, call.toolArgs, () =>
        this.#denyRead.paths(),
      );
    } catch (error) {
      // Fails closed: a call the rule could not judge might change what decides the guards.
      return refused(
        call,
        `the protected-ground rule failed on this call (${error instanceof Error ? error.message : String(error)}), so it is refused`,
      );
    }
    if (found === undefined) return undefined;
    return refused(
      call,
      `${found.what}, which is protected ground (${found.decides}). An agent may not change what decides its guards, with or without a plan (docs/trust.md, Protected ground). If the change is needed, ask the user to make it in their own terminal (and to run \`hermes extensions trust\` there once they have reviewed it); do not try another way around`,
    );
  }
}

/** The outcome's note on a call the rule made run in its sandbox. */
const SANDBOXED = 'runs in the protected-ground sandbox (docs/trust.md, Protected ground)';

function refused(call: ToolCallInput, why: string): Refused {
  return frameworkRefusal(call, `Blocked by ${FRAMEWORK_NAME}: ${why}.`);
}
