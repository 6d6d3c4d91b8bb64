import { readAnswer } from './answer.js';
import type { Decide } from './extension.js';
import { decisionInput } from './input.js';
import { postJson, type Remote } from './remote.js';

/**
 * `kind: http`: the event is POSTed as JSON to the service, which answers `{ allow, reason }` or a
 * HookResult (docs/policies.md, http).
 */
export function httpDecide(name: string, remote: Remote): Decide {
  const who = `${name} (http)`;
  return async (hook, event) =>
    readAnswer(await postJson(remote, decisionInput(hook, event), who), who);
}
