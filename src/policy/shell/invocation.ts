import { quote } from 'shell-quote';

/**
 * What a shell tool call runs, read from its arguments the way shell tools take them: a line
 * (`command`, `cmd`, `script`, `code`, `input`) run by a shell, or an argument vector (an array
 * under one of those names, or a program with `args`/`argv`) run without one; the folder it runs
 * in (`workdir`, `cwd`, …). A call whose arguments say more than that (an environment, another
 * shell, an argument the guard does not know) is `unknown`: it cannot be judged.
 */
export type ShellInvocation =
  | {
      kind: 'known';
      /** Every way the call may be run; a guard judges each (a program and `args` both ways). */
      runs: Array<string | string[]>;
      /** The folder it starts in, as given (relative to the project root), if given. */
      cwd: string | undefined;
    }
  | { kind: 'unknown'; reason: string };

/** The names agents and frameworks give their shell tools (the guards' default `shell_tools`). */
export const SHELL_TOOL_NAMES: readonly string[] = [
  'terminal',
  'bash',
  'shell',
  'exec',
  'exec_command',
  'shell_command',
  'local_shell',
  'run_command',
  'run_shell_command',
  'run_terminal_cmd',
  'execute_command',
];

/** The argument names a shell tool's command line comes under. */
export const COMMAND_KEYS: readonly string[] = ['command', 'cmd', 'script', 'code', 'input'];
const ARGV_KEYS = ['args', 'argv', 'arguments'];
const CWD_KEYS = ['workdir', 'cwd', 'working_directory', 'workingDirectory', 'dir', 'directory'];
/** Arguments of the common shell tools that change nothing about what runs. */
const HARMLESS_KEYS = new Set([
  'description',
  'timeout',
  'timeout_ms',
  'timeoutMs',
  'run_in_background',
  'runInBackground',
  'dangerouslyDisableSandbox',
  'justification',
  'sandbox_permissions',
  'with_escalated_permissions',
  'prefix_rule',
  'login',
  'tty',
  'max_output_tokens',
  'yield_time_ms',
  'restart',
]);
const SHELLS = new Set([
  'bash',
  'sh',
  'dash',
  '/bin/bash',
  '/bin/sh',
  '/bin/dash',
  '/usr/bin/bash',
]);
const ENV_KEYS = ['env', 'environment'];
/** Shells that may be dash: a line they run is judged as `sh -c LINE` (posix.ts). */
const POSIX_SHELLS = new Set(['sh', 'dash', '/bin/sh', '/bin/dash']);

export function shellInvocationOf(args: Readonly<Record<string, unknown>>): ShellInvocation {
  const runs: Array<string | string[]> = [];
  let cwd: string | undefined;
  let program: string | undefined;
  let argv: string[] | undefined;
  let posix = false;
  for (const [key, value] of Object.entries(args)) {
    if (COMMAND_KEYS.includes(key)) {
      if (typeof value === 'string') {
        runs.push(value);
        program ??= value;
      } else if (isStrings(value)) {
        runs.push(value);
      } else if (value !== undefined && value !== null) {
        return unknown(`its \`${key}\` is neither a command line nor a list of words`);
      }
    } else if (ARGV_KEYS.includes(key)) {
      if (!isStrings(value)) return unknown(`its \`${key}\` is not a list of words`);
      argv = value;
    } else if (CWD_KEYS.includes(key)) {
      if (value === undefined || value === null || value === '') continue;
      if (typeof value !== 'string') return unknown(`its \`${key}\` is not a folder name`);
      if (cwd !== undefined && cwd !== value) return unknown('it names two working folders');
      cwd = value;
    } else if (ENV_KEYS.includes(key)) {
      if (value !== undefined && value !== null && Object.keys(value as object).length > 0) {
        return unknown(`it sets environment variables (\`${key}\`)`);
      }
    } else if (key === 'shell') {
      if (typeof value !== 'string' || !SHELLS.has(value)) {
        return unknown(`it runs in the shell ${JSON.stringify(value)}, which is not bash or sh`);
      }
      posix = POSIX_SHELLS.has(value);
    } else if (!HARMLESS_KEYS.has(key)) {
      return unknown(`its argument \`${key}\` is not one the guard knows`);
    }
  }
  if (argv !== undefined) {
    // A program and its arguments: run directly, or joined (quoted or not) and given to a shell.
    if (program === undefined) return unknown('it has arguments but no command');
    runs.push(
      [program, ...argv],
      [program, ...argv.map((a) => quote([a]))].join(' '),
      [program, ...argv].join(' '),
    );
  }
  if (runs.length === 0) return unknown('it has no command');
  // A line for sh is sh's code: `[[ a > f ]]` truncates f under dash.
  if (posix)
    return {
      kind: 'known',
      runs: runs.map((r) => (typeof r === 'string' ? ['sh', '-c', r] : r)),
      cwd,
    };
  return { kind: 'known', runs, cwd };
}

/**
 * The command line of a shell tool call (an argument vector quoted back into one line), for
 * callers that want the text; `shellInvocationOf` says everything that may run.
 */
export function shellCommandOf(args: Readonly<Record<string, unknown>>): string | undefined {
  for (const key of COMMAND_KEYS) {
    const value = args[key];
    if (typeof value === 'string') return value;
    if (isStrings(value)) return quote(value);
  }
  return undefined;
}

function isStrings(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === 'string');
}

function unknown(reason: string): ShellInvocation {
  return { kind: 'unknown', reason: `the shell call cannot be judged: ${reason}` };
}
