import { ConfigError } from '../../config/errors.js';
import type { CommandHookAgent } from './agent.js';
import { type HookAnswer, NO_DECISION, render } from './answers.js';
import { TurnStoreError } from './turn-store.js';

/**
 * The answer to an event that is only reported: nothing but `notices`, even when the report
 * failed.
 */
export async function reported(
  agent: CommandHookAgent,
  event: string | undefined,
  report: Promise<void>,
  notices: readonly string[] = [],
): Promise<HookAnswer> {
  try {
    await report;
    return render(agent, event, NO_DECISION, notices);
  } catch (error) {
    const why = error instanceof ConfigError ? error.message : describeFailure(error);
    return render(
      agent,
      event,
      {
        ...NO_DECISION,
        stderr: `hermes hook ${agent.name}: observers were not told of this event: ${why}`,
      },
      notices,
    );
  }
}

/** One line: a store failure names its path; anything else unexpected says what it was. */
export function describeFailure(error: unknown): string {
  if (error instanceof TurnStoreError) return error.message;
  const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return `unexpected error: ${text.split('\n')[0]}`;
}
