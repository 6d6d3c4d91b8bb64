/** What the hook process prints and how it exits, as the agent's hook protocol reads them. */
export interface HookAnswer {
  exitCode: number;
  stdout?: string;
  stderr?: string;
}

/**
 * An answer as the engine gives it to an agent's `writeAnswer` (agent.ts): in the form of Claude
 * Code's hook protocol, the notices for the user merged in as `systemMessage`.
 */
export interface WireAnswer {
  /** The event answered, in the engine's names; undefined when it could not be read. */
  event: string | undefined;
  /** The JSON answer (none: go on as if there were no hook). */
  output?: Record<string, unknown>;
  /** Whether it refuses a tool call (a deny, or an ask the person may say no to). */
  refuses: boolean;
  stderr?: string;
}
