import { declarationOf } from '../../hooks/index.js';
import { refusedAfterCrash } from '../crash-outcome.js';
import type { RelayedRequest } from './relay.js';
import type { ProxySession } from './session.js';

type ListResult = { [key: string]: unknown };

/**
 * The wrapped server's tools as the client may see them. No model request passes the proxy, so
 * `before_llm_call` runs at each `tools/list` with the listed tools as the request's tools and no
 * messages: a `restrictTools` hides the tools it removes (and the turn then refuses calls to
 * them, as any host refuses a tool its request did not offer); its other changes have nothing
 * to apply to. A list in pages is judged with every tool listed so far, so a later page does not
 * take back what an earlier one offered. While the extensions cannot load the list passes as it
 * came: each call is refused then anyway (tool-calls.ts).
 */
export class ToolList {
  /** The names listed since the first page of the current listing. */
  #listed = new Set<string>();

  constructor(private readonly session: ProxySession) {}

  async judged(request: RelayedRequest, result: ListResult): Promise<ListResult> {
    const tools = result.tools;
    if (!Array.isArray(tools)) return result;
    if (request.params?.cursor === undefined) this.#listed = new Set();
    for (const tool of tools) {
      const name = (tool as { name?: unknown } | null)?.name;
      if (typeof name === 'string') this.#listed.add(name);
    }
    let open: Awaited<ReturnType<ProxySession['turn']>>;
    try {
      open = await this.session.turn();
    } catch {
      return result;
    }
    const { turn, runtime } = open;
    const input = { systemPrompt: '', messages: [], iteration: 0, tools: [...this.#listed] };
    const outcome = await runtime.decide(
      async () => turn.beforeLlmCall(input),
      (crash) => refusedAfterCrash(declarationOf('before_llm_call'), input, crash),
    );
    if (outcome.blocked) {
      // Nothing of the server's is offered while a guard refuses the request itself.
      return { ...result, tools: [] };
    }
    const kept = outcome.value.tools;
    if (kept === undefined) return result;
    const offered = new Set(kept);
    return {
      ...result,
      tools: tools.filter((tool) =>
        offered.has((tool as { name?: unknown } | null)?.name as string),
      ),
    };
  }
}
