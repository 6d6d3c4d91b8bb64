import { type ChainOutcome, EMPTY_METADATA, FRAMEWORK_NAME } from '../chain/outcome.js';
import type { ToolCallInput } from '../hooks/intercept-tool-call.js';
import { type ProtectedGround, protectedGround } from '../policy/protected/ground.js';
import { groundKindOf } from '../policy/protected/kinds.js';

type Args = Record<string, unknown>;
type Judge = typeof import('../policy/protected/judge.js');
type Refused = ChainOutcome<Args>;

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

  constructor(projectRoot: string) {
    this.#ground = protectedGround(projectRoot);
    // Started here too, for a runtime made without the builders.
    loadGroundJudge().catch(() => undefined);
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

  #judged(judge: Judge, call: ToolCallInput): Refused | undefined {
    let found: ReturnType<Judge['judgeGround']>;
    try {
      found = judge.judgeGround(this.#ground, call.toolName, call.toolArgs);
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

function refused(call: ToolCallInput, why: string): Refused {
  return {
    blocked: true,
    message: `Blocked by ${FRAMEWORK_NAME}: ${why}.`,
    blockedBy: FRAMEWORK_NAME,
    changed: false,
    value: call.toolArgs,
    metadata: EMPTY_METADATA,
    trace: [],
  };
}
