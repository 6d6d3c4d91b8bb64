import type { HookName } from '../hooks/index.js';

/**
 * What a decision service is sent (docs/policies.md, The input): the hook point and the handler's
 * event as JSON data, the field names as `hermes.on` handlers read them (`toolName`, `toolArgs`,
 * `agent`, `state`, …). A copy, so the service cannot reach the frozen event.
 */
export function decisionInput(hook: HookName, event: object): Record<string, unknown> {
  return JSON.parse(JSON.stringify({ hook, ...event })) as Record<string, unknown>;
}
