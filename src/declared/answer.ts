import type { HookName } from '../hooks/index.js';
import type { HandlerReturn } from '../hooks/types.js';

/** What a policy said when it decided nothing: the declaration's `default` applies. */
export const NO_DECISION = Symbol('no decision');
export type Decision = HandlerReturn<HookName> | typeof NO_DECISION;

/**
 * A decision service's answer (docs/policies.md, Answers): `{ allow, reason }`, or a full
 * HookResult (`{ action, value?, metadata? }`, which the chain validates as any handler's). Any
 * other answer is not understood and throws: the handler's fail mode decides (closed, by default,
 * for tool calls), never a guess.
 */
export function readAnswer(answer: unknown, who: string): Decision {
  if (answer === null || typeof answer !== 'object' || Array.isArray(answer)) {
    throw new Error(
      `${who} answered ${shown(answer)}: expected {"allow": …, "reason": …} or a HookResult`,
    );
  }
  const record = answer as Record<string, unknown>;
  if (typeof record.action === 'string') return record as unknown as HandlerReturn<HookName>;
  if (typeof record.allow !== 'boolean') {
    throw new Error(`${who} answered ${shown(answer)}: "allow" must be true or false`);
  }
  if (record.reason !== undefined && typeof record.reason !== 'string') {
    throw new Error(`${who} answered ${shown(answer)}: "reason" must be a string`);
  }
  if (record.allow) return { action: 'pass' };
  return { action: 'block', value: (record.reason as string | undefined) ?? `${who} denied it` };
}

/** An answer as a message shows it: short, one line. */
export function shown(value: unknown): string {
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}
