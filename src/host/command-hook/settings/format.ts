import type { CommandHookAgent } from '../agent.js';

/**
 * One form of settings file an agent keeps its hooks in: how to find, add and remove this
 * package's hook commands in it. Install, uninstall and doctor go through it, so an agent whose
 * file looks different is a new form here, not a new install command.
 */

export interface SettingsFormat {
  /**
   * Every hook command in `file` with the event it is registered for, in the agent's names;
   * undefined when there is no such file or it cannot be read (doctor says so elsewhere).
   */
  hookCommands(file: string): Array<{ event: string; command: string }> | undefined;
  /**
   * Adds `command` for `events`, keeping every other setting and hook and the file's layout;
   * a hermes hook already there with another command line gets this one. Returns the events it
   * added or updated (none: the file is untouched). A file it cannot read is an error.
   * `commandFor`, where the format keeps a command per event, gives each event's own (the short
   * lines of hook-line.ts); `command` is then what a format with one command for all takes.
   */
  install(
    agent: CommandHookAgent,
    options: {
      file: string;
      command: string;
      commandFor?: (event: string) => string;
      events: readonly string[];
    },
  ): { added: string[]; updated: string[] };
  /** Removes the agent's hermes hooks (of `events` only, when given), keeping everything else. */
  uninstall(
    agent: CommandHookAgent,
    file: string,
    events?: readonly string[],
  ): { removed: string[] };
}
