import { NO_DECISION, readAnswer } from './answer.js';
import type { Decide } from './extension.js';
import { decisionInput } from './input.js';
import { postJson, type Remote } from './remote.js';

/**
 * `kind: rego` with `server`: OPA's Data API (`POST /v1/data/<path>` with `{"input": …}`, answered
 * `{"result": …}`). A document that is not defined for this input (no `result`) is no decision;
 * `true` / `false` allow or deny; an object is read as `{ allow, reason }` or a HookResult
 * (docs/policies.md, rego).
 */
export function regoServerURL(server: string, path: string): string {
  return `${server.replace(/\/+$/, '')}/v1/data/${path}`;
}

export function regoServerDecide(name: string, path: string, remote: Remote): Decide {
  const who = `${name} (rego ${path})`;
  return async (hook, event) => {
    const answer = await postJson(remote, { input: decisionInput(hook, event) }, who);
    if (answer === null || typeof answer !== 'object' || Array.isArray(answer)) {
      return readAnswer(answer, who);
    }
    if (!Object.hasOwn(answer, 'result')) return NO_DECISION;
    const result = (answer as { result: unknown }).result;
    if (result === true) return { action: 'pass' };
    if (result === false) return { action: 'block', value: `${who} denied it` };
    return readAnswer(result, who);
  };
}
