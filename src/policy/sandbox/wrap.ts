import { type SandboxAvailability, sandboxAvailability } from './availability.js';
import { bwrapLineParts, LinkAtDangerousName } from './bwrap-line.js';
import { networkFilterHost } from './network-filter.js';
import { shellWord, unquoteShellWord } from './quote.js';
import { type SandboxOptions, sandboxSettings } from './settings.js';

/** A command line made to run in the OS sandbox, or why it cannot be. */
export type SandboxedCommand =
  | { kind: 'sandboxed'; command: string; leftOut: string[] }
  | { kind: 'unavailable'; reason: string; fix: string };

/**
 * The command line that runs `command` in the OS sandbox (docs/policy.md, The OS sandbox): the sandbox
 * runtime's own command line (`srt`, bubblewrap on Linux, Seatbelt on macOS) started by this
 * Node.js with a settings file that makes everything read-only except `writable` and a private
 * temporary folder, with no network but `network`. It is one line of plain quoted words, so any
 * POSIX shell the agent runs it in reads it the same, and it starts its own network filter, so it
 * holds after the process that made it has exited (a command hook answers, then the agent runs
 * the command). Inside, the command runs under bash with `$TMPDIR` set to the private folder.
 */
export function sandboxCommand(command: string, options: SandboxOptions): SandboxedCommand {
  const host = networkFilterHost();
  const made = sandboxCommandWith(command, options, host !== undefined);
  if (made.kind === 'sandboxed' && made.filter !== undefined) {
    host?.want(made.filter.stateDir, made.filter.domains);
  }
  return made.kind === 'sandboxed'
    ? { kind: 'sandboxed', command: made.command, leftOut: made.leftOut }
    : made;
}

/**
 * `sandboxCommand`, with the line pointed at the hook daemon's network filter when a domain is
 * allowed (`daemonFilter`, bwrap-line.ts) or else the `srt` line; and the filter it points at.
 */
export function sandboxCommandWith(
  command: string,
  options: SandboxOptions,
  daemonFilter: boolean,
):
  | (Extract<SandboxedCommand, { kind: 'sandboxed' }> & {
      filter?: { stateDir: string; domains: string[] };
    })
  | Extract<SandboxedCommand, { kind: 'unavailable' }> {
  const availability = sandboxAvailability();
  if (!availability.available) {
    return { kind: 'unavailable', reason: availability.reason, fix: availability.fix };
  }
  if (command.includes('\0')) {
    return {
      kind: 'unavailable',
      reason: 'the command holds a NUL character, which no command line can carry',
      fix: 'remove it',
    };
  }
  let settings: { file: string; tmpDir: string; leftOut: string[] };
  try {
    // Our own bubblewrap line where it can hold the rules (bwrap-line.ts), else the runtime's.
    const own = bwrapLineParts(options, daemonFilter);
    if (own !== undefined) {
      return {
        kind: 'sandboxed',
        command: `${own.before}${shellWord(script(own.tmpDir, command))}${own.after}`,
        leftOut: own.leftOut,
        ...(own.filter === undefined ? {} : { filter: own.filter }),
      };
    }
    settings = sandboxSettings(options);
  } catch (error) {
    if (error instanceof LinkAtDangerousName) {
      return { kind: 'unavailable', reason: error.message, fix: error.fix };
    }
    return {
      kind: 'unavailable',
      reason: `the sandbox's settings could not be made: ${error instanceof Error ? error.message : String(error)}`,
      fix: 'make $HERMES_HOME (where the settings are kept) and the temporary folder writable by this user, outside every writable path',
    };
  }
  return {
    kind: 'sandboxed',
    command: sandboxLine(availability, settings.file, settings.tmpDir, command),
    leftOut: settings.leftOut,
  };
}

/**
 * The command a line made by `sandboxCommand` with these options runs, or undefined when the line
 * is anything else. The line is not parsed for meaning: the candidate command is read off it, the
 * line for that command is made again, and only an exact match counts, so a line that differs in
 * any byte (other settings, another program, another filter, something appended) is not a
 * sandboxed command. With a domain allowed, either maker's line counts (the hook daemon's, or the
 * `srt` line of a hook without it): which one made it depends on where the hook ran, not on what
 * the line holds.
 */
export function sandboxedCommandOf(line: string, options: SandboxOptions): string | undefined {
  const availability = sandboxAvailability();
  if (!availability.available) return undefined;
  const candidate = scriptCommandOf(line);
  if (candidate === undefined) return undefined;
  const makers = (options.network ?? []).length > 0 ? [true, false] : [false];
  return makers.some((daemonFilter) => {
    const again = sandboxCommandWith(candidate, options, daemonFilter);
    return again.kind === 'sandboxed' && again.command === line;
  })
    ? candidate
    : undefined;
}

/**
 * The command in the script word of a sandboxed line (`-c '<prelude>\n<command>'`), read off the
 * line and not trusted: a caller makes the line again from it and compares. The first ` -c '`:
 * the words before it are paths (a path holding that text would only make the candidate wrong,
 * and a wrong candidate cannot match).
 */
export function scriptCommandOf(line: string): string | undefined {
  const at = line.indexOf(" -c '");
  if (at < 0) return undefined;
  const quoted = /'(?:[^']|'\\'')*'/y;
  quoted.lastIndex = at + 4;
  const match = quoted.exec(line);
  const word = match === null ? undefined : unquoteShellWord(match[0]);
  if (word === undefined) return undefined;
  const newline = word.indexOf('\n');
  if (newline < 0 || !word.startsWith(PRELUDE_START)) return undefined;
  return word.slice(newline + 1);
}

/** What runs inside: `$TMPDIR` set to the private folder, then the command. */
function script(tmpDir: string, command: string): string {
  return `${PRELUDE_START}${shellWord(tmpDir)}\n${command}`;
}

/**
 * Whether a command line could be one `sandboxCommand` makes (the runtime's line names its
 * settings, our own bubblewrap line unshares the network): a cheap test before one is made again.
 */
export function mayBeSandboxed(line: string): boolean {
  return line.includes(' --settings ') || line.includes(' --unshare-net ');
}

export const PRELUDE_START = 'export TMPDIR=';

/** The sandboxed command line, from its parts (here for held.ts, which makes it again). */
export function sandboxLine(
  availability: Extract<SandboxAvailability, { available: true }>,
  settingsFile: string,
  tmpDir: string,
  command: string,
): string {
  return [
    shellWord(process.execPath),
    shellWord(availability.cli),
    '--settings',
    shellWord(settingsFile),
    '-c',
    shellWord(script(tmpDir, command)),
  ].join(' ');
}
