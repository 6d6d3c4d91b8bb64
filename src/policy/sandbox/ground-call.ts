import type { ProtectedGround } from '../protected/ground.js';
import { COMMAND_KEYS } from '../shell/invocation.js';
import { groundSandboxAvailability } from './ground-availability.js';
import { groundSandboxCommand, groundSandboxedCommandOf } from './ground-sandbox.js';
import { shellWord } from './quote.js';
import { rewrapShellCall, type SandboxedShellCall } from './shell-call.js';

/**
 * A shell tool call made to run in the protected-ground sandbox (ground-sandbox.ts): its one
 * command line replaced by the sandbox's, or its argument vector (`["bash", "-lc", "…"]`, run
 * without a shell) by `[bash, -c, the sandbox's line for those words]`; every other argument kept.
 * `denyRead`: paths the command may not read (ground-sandbox.ts).
 */
export function groundSandboxCall(
  args: Readonly<Record<string, unknown>>,
  ground: ProtectedGround,
  denyRead: readonly string[] = [],
): SandboxedShellCall {
  const argv = argvOf(args);
  if (argv === undefined) {
    return rewrapShellCall(args, (command) => groundSandboxCommand(command, ground, denyRead));
  }
  const availability = groundSandboxAvailability();
  const made = groundSandboxCommand(argv.words.map(shellWord).join(' '), ground, denyRead);
  if (!availability.available || made.kind !== 'sandboxed') {
    const why = made.kind === 'unavailable' ? made : { reason: 'no sandbox', fix: '' };
    return { kind: 'unsupported', reason: why.reason, fix: why.fix };
  }
  return {
    kind: 'sandboxed',
    args: { ...args, [argv.key]: [availability.bash, '-c', made.command] },
    leftOut: [],
  };
}

/**
 * The call as it was before `groundSandboxCall` made it, when `args` are exactly what it makes
 * (made again and compared); undefined for any other call.
 *
 * Made again from the disk as it is now: a protected place made or removed since the line was
 * made (a user's `~/.cursor/hooks.json`, the daemon's folder) gives another line, and the one sent
 * back is not recognised. That fails closed: unrecognised, the line is judged as any command,
 * and it names protected ground (its lock and binds in `$HERMES_HOME`), so it is refused
 * (judge.ts); it never runs as recognised with fewer places kept than the ground has now. The
 * agent sends the command itself again, and it is wrapped anew. Left so on purpose: a line
 * recognised by anything weaker than equality would have to prove that its binds still keep
 * every place read-only, a second reading of bubblewrap's arguments to get wrong.
 */
export function groundSandboxedCallOf(
  args: Readonly<Record<string, unknown>>,
  ground: ProtectedGround,
  denyRead: readonly string[] = [],
): Record<string, unknown> | undefined {
  const key = COMMAND_KEYS.find((name) => args[name] !== undefined && args[name] !== null);
  if (key === undefined) return undefined;
  const value = args[key];
  let inner: Record<string, unknown> | undefined;
  if (typeof value === 'string') {
    const command = groundSandboxedCommandOf(value, ground, denyRead);
    inner = command === undefined ? undefined : { ...args, [key]: command };
  } else if (Array.isArray(value) && value.length === 3 && value[1] === '-c') {
    const availability = groundSandboxAvailability();
    const line = value[2];
    if (!availability.available || value[0] !== availability.bash || typeof line !== 'string') {
      return undefined;
    }
    const command = groundSandboxedCommandOf(line, ground, denyRead);
    const words = command === undefined ? undefined : shellWords(command);
    inner = words === undefined ? undefined : { ...args, [key]: words };
  }
  if (inner === undefined) return undefined;
  const again = groundSandboxCall(inner, ground, denyRead);
  return again.kind === 'sandboxed' && JSON.stringify(again.args) === JSON.stringify(args)
    ? inner
    : undefined;
}

/**
 * Whether a call could be a sandbox's line at all — every one starts with a program by its quoted
 * absolute path and runs a shell with `-c`, or is `[bash, -c, line]` — so what a sandbox would
 * hide (`denyRead`, a search of the disk) is asked only for one that could.
 */
export function mayBeSandboxLine(args: Readonly<Record<string, unknown>>): boolean {
  return COMMAND_KEYS.some((name) => {
    const value = args[name];
    if (typeof value === 'string') return value.startsWith("'/") && value.includes(' -c ');
    return Array.isArray(value) && value.length === 3 && value[1] === '-c';
  });
}

const ARGV_KEYS = ['args', 'argv', 'arguments'];

/** The call's argument vector, when it gives its command as one (and nothing else that runs). */
function argvOf(
  args: Readonly<Record<string, unknown>>,
): { key: string; words: string[] } | undefined {
  const keys = COMMAND_KEYS.filter((name) => args[name] !== undefined && args[name] !== null);
  const key = keys[0];
  if (keys.length !== 1 || key === undefined) return undefined;
  const words = args[key];
  if (!Array.isArray(words) || words.length === 0) return undefined;
  if (!words.every((word) => typeof word === 'string')) return undefined;
  if (ARGV_KEYS.some((name) => args[name] !== undefined)) return undefined;
  return { key, words };
}

/** Words joined by `shellWord` and a space, taken apart again; undefined for any other text. */
function shellWords(line: string): string[] | undefined {
  const words: string[] = [];
  const word = /'((?:[^']|'\\'')*)'(?: |$)/y;
  let at = 0;
  while (at < line.length) {
    word.lastIndex = at;
    const match = word.exec(line);
    if (match === null) return undefined;
    words.push((match[1] as string).replace(/'\\''/g, "'"));
    at = word.lastIndex;
  }
  return words.map(shellWord).join(' ') === line ? words : undefined;
}
