import type { ChainOutcome } from '../chain/outcome.js';
import type { AgentIdentity } from '../hooks/agent-identity.js';
import type { LlmRequest } from '../hooks/before-llm-call.js';
import type { ToolCallInput } from '../hooks/intercept-tool-call.js';
import type { HandlerIndex } from './handler-index.js';
import type { PauseSwitch } from './pause-switch.js';
import type { GroundRule } from './protected-ground.js';
import {
  frameworkRefusal,
  NO_RESTRICTIONS,
  notOffered,
  type OfferedTools,
} from './tool-call-refusals.js';

/**
 * What a turn decides of a tool call before any chain runs (turn.ts): the refusals that come
 * first, and the tool names whose calls need no chain at all.
 */

type Refused = ChainOutcome<Record<string, unknown>>;

/**
 * The tools the last model request of each agent of one turn offered, when known (docs/hosts.md,
 * Restricting the tools of a request). A subagent run in-process has tools of its own, and its
 * requests must not change what its parent may call (nor the other way round): each has its own.
 */
export class TurnOffers {
  #main: OfferedTools | undefined;
  /** Made when a subagent first asks, so the main agent's look stays one field read. */
  #subagents: Map<string, OfferedTools> | undefined;

  /** Remembers what a request offers; a blocked request is not made, so it offers nothing new. */
  offer(outcome: ChainOutcome<LlmRequest>, agentId: string | undefined): void {
    if (outcome.blocked) return;
    const { tools, toolRestrictions } = outcome.value;
    const offered =
      tools === undefined
        ? undefined
        : { names: new Set(tools), restrictions: toolRestrictions ?? NO_RESTRICTIONS };
    if (agentId === undefined) this.#main = offered;
    else if (offered === undefined) this.#subagents?.delete(agentId);
    else {
      this.#subagents ??= new Map();
      this.#subagents.set(agentId, offered);
    }
  }

  of(agent: AgentIdentity | undefined): OfferedTools | undefined {
    return agent === undefined ? this.#main : this.#subagents?.get(agent.id);
  }

  clear(): void {
    this.#main = undefined;
    this.#subagents = undefined;
  }
}

/**
 * The framework's refusals that come before everything else, in this order: the kill switch
 * (pause-switch.ts), a tool the request did not offer, a call the host could not judge
 * (`ToolCallInput.unjudgeable`). Undefined when none holds. Each is decided per call: none is
 * fixed for a runtime's life, so none may be remembered by `PlainTools`.
 */
export function preChainRefusal(
  call: ToolCallInput,
  pause: PauseSwitch | undefined,
  offers: TurnOffers,
): Refused | undefined {
  const paused = pause?.refusal(call);
  if (paused !== undefined) return paused;
  const offered = offers.of(call.agent);
  if (offered !== undefined && !offered.names.has(call.toolName)) return notOffered(call, offered);
  if (call.unjudgeable !== undefined) return frameworkRefusal(call, call.unjudgeable);
  return undefined;
}

/** How many tool names are remembered before the memo starts over. */
const PLAIN_LIMIT = 1024;

/**
 * The tool names whose calls, once past `preChainRefusal`, are answered unchanged with no chain:
 * no `intercept_tool_call` handler matches the name and the protected-ground rule does not judge
 * it (a tool known to only read). Both facts are fixed for the runtime's life (its handlers are
 * ordered once, the rule's kinds go by the name), so one memo serves every turn of the runtime
 * and needs no clearing. Whatever may change — the pause flag, the offered tools, the call's own
 * fields — is judged before it is asked.
 */
export class PlainTools {
  readonly #handlers: HandlerIndex;
  readonly #ground: GroundRule | undefined;
  /** Every name judged so far, either way: a name with handlers is not asked about again. */
  readonly #judged = new Map<string, boolean>();
  /**
   * The last name asked about, and its answer: an agent calls the same few tools, most often the
   * one it just did, and a tool with handlers asks here on every call too.
   */
  #lastName: string | undefined;
  #lastPlain = false;

  constructor(handlers: HandlerIndex, ground: GroundRule | undefined) {
    this.#handlers = handlers;
    this.#ground = ground;
  }

  has(toolName: string): boolean {
    if (toolName === this.#lastName) return this.#lastPlain;
    let plain = this.#judged.get(toolName);
    if (plain === undefined) {
      plain =
        this.#handlers.forTool(toolName).length === 0 &&
        (this.#ground === undefined || !this.#ground.judges(toolName));
      // Bounded: a host that makes up tool names per call must not grow it without end.
      if (this.#judged.size >= PLAIN_LIMIT) this.#judged.clear();
      this.#judged.set(toolName, plain);
    }
    this.#lastName = toolName;
    this.#lastPlain = plain;
    return plain;
  }
}
