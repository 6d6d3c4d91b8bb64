import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tree } from './fixtures.js';

export const root = fileURLToPath(new URL('../..', import.meta.url));
export const bin = join(root, 'bin/hermes.js');
/** The command-line tests run the built bin, as users and agents do. */
export const built = existsSync(join(root, 'dist/cli/main.js'));

export interface Answer {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * A program run to its end as a child process: `stdin` written and closed, the environment
 * `env` on top of this one's (a key set to `undefined` is left out), its exit code and output.
 */
export function runProcess(
  command: string,
  args: string[],
  options: {
    env?: Record<string, string | undefined>;
    cwd?: string;
    stdin?: string;
    timeout?: number;
  } = {},
): Promise<Answer> {
  return new Promise((resolve) => {
    const env = { ...process.env, ...options.env };
    for (const [key, value] of Object.entries(env)) if (value === undefined) delete env[key];
    execFile(
      command,
      args,
      {
        env,
        ...(options.cwd ? { cwd: options.cwd } : {}),
        ...(options.timeout ? { timeout: options.timeout } : {}),
      },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code) : 0, stdout, stderr }),
    ).stdin?.end(options.stdin ?? '');
  });
}

/** The bin run as a child process, with `stdin` written to it. */
export function runBin(
  args: string[],
  env: Record<string, string | undefined> = {},
  stdin = '',
): Promise<Answer> {
  return runProcess(process.execPath, [bin, ...args], { env, stdin });
}

/** The bin as an agent runs a command hook: the event's JSON on stdin. */
export function runHook(
  agent: string,
  home: string,
  event: unknown,
  extraEnv: Record<string, string> = {},
  options: { timeout?: number } = {},
): Promise<Answer> {
  return runProcess(process.execPath, [bin, 'hook', agent], {
    // The agent's own report of the session's folder only when a test gives it (session-root.ts).
    env: { HERMES_HOME: home, HOME: home, CLAUDE_PROJECT_DIR: undefined, ...extraEnv },
    stdin: typeof event === 'string' ? event : JSON.stringify(event),
    ...options,
  });
}

/** A hook's user config that loads workflow-guard. */
export const WORKFLOW_GUARD = 'extensions:\n  paths: [hermes-extensions/workflow-guard]\n';

/**
 * The homes of a hook process run through `hermes hook`: the user's (`files` in it; by default
 * an empty Claude Code settings file) and, as its `HERMES_HOME`, its `.hermes` with `config` as
 * config.yaml.
 */
export function hookHomes(
  config = WORKFLOW_GUARD,
  files: Record<string, string> = { '.claude/settings.json': '{}\n' },
): { user: string; home: string } {
  const user = tree(files);
  const home = join(user, '.hermes');
  mkdirSync(home);
  writeFileSync(join(home, 'config.yaml'), config);
  return { user, home };
}

/**
 * A project as workflow-guard's hook tests use it: a repository with a `.hermes/` of its own,
 * `src/app.ts` to protect and an empty `plans/`.
 */
export function guardedProject(): string {
  return tree({
    '.git/HEAD': '',
    '.hermes/config.yaml': 'extensions: {}\n',
    'src/app.ts': 'export const app = 1;\n',
    'plans/.keep': '',
  });
}

/** A Claude Code `PreToolUse` event for a call of `tool` in `cwd`, as `hermes hook claude-code` reads it. */
export function preToolUse(
  session: string,
  cwd: string,
  tool: string,
  input: Record<string, unknown>,
  id?: string,
) {
  return {
    session_id: session,
    transcript_path: '/dev/null',
    cwd,
    permission_mode: 'default',
    hook_event_name: 'PreToolUse',
    tool_name: tool,
    tool_input: input,
    ...(id === undefined ? {} : { tool_use_id: id }),
  };
}

/**
 * `hermes` at `binFile` (an installed copy's bin) in a child process, for the project, with its
 * own $HERMES_HOME and $HOME, the project trusted for this run.
 */
export function hermesAt(
  binFile: string,
  home: string,
  project: string,
  ...args: string[]
): Promise<Answer> {
  return runProcess(process.execPath, [binFile, ...args, '--cwd', project], {
    env: { HERMES_HOME: home, HOME: home, HERMES_TRUST_PROJECT: '1' },
  });
}
