import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRuntime } from 'hermes-extensions';
import { sandboxedShellCallOf } from 'hermes-extensions/policy';
import { memoryLogger } from 'hermes-extensions/testing';
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import workflowGuard from '../../extensions/workflow-guard/index.js';
import { NetworkFilters } from '../../src/host/daemon/network-filters.js';
import { serveNetworkFilterFrom } from '../../src/policy/sandbox/network-filter.js';
import { tree } from './fixtures.js';
import { useSandboxSettingsHome } from './sandbox.js';

/**
 * What the attack tests of workflow-guard's sandbox share (extensions/workflow-guard/sandbox-*.test.ts):
 * a project, a home folder per test, and one tool call decided by the guard and then run for real
 * with bash, as the agent would run it.
 */

// The settings files go to a home of this file's own, and the user's home is one made per test:
// programs a proven read runs unsandboxed (npm) keep files there.
const realHome = process.env.HOME;
let home = '';

/** This test's home folder (a new one per test). */
export const testHome = () => home;

/**
 * Gives the calling test file its own settings home and each of its tests a home folder. Called
 * by each file, not when this module loads: test files share loaded modules (vitest.config.ts).
 */
export function useAttackHomes(): void {
  useSandboxSettingsHome();
  beforeEach(() => {
    home = mkdtempSync(join(tmpdir(), 'hermes-attack-home-'));
    mkdirSync(join(home, '.npm/_logs'), { recursive: true });
    mkdirSync(join(home, '.claude/debug'), { recursive: true });
    process.env.HOME = home;
  });
  afterEach(() => {
    process.env.HOME = realHome;
    rmSync(home, { recursive: true, force: true });
  });
}

export function project(files: Record<string, string> = {}) {
  const root = tree({ 'src/app.ts': 'export const app = 1;\n', 'plans/.keep': '', ...files });
  run('git init -q && git add -A && git -c user.email=t@t -c user.name=t commit -qm init', root);
  return root;
}

/** The environment of an agent's shell: this one, less what the npm that started the tests set. */
export function agentEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name)));
}

/** Runs a line as the agent's shell tool would (`bash -c` in `cwd`), with this test's home. */
export function run(command: string, cwd: string) {
  const ran = spawnSync('bash', ['-c', command], {
    cwd,
    encoding: 'utf8',
    timeout: 60_000,
    env: { ...agentEnv(), HOME: home },
  });
  return { code: ran.status, stdout: ran.stdout, stderr: ran.stderr };
}

/** The domains the attacks' sandbox may reach: none, unless `useDaemonNetworkFilter`. */
let network: string[] = [];

/** Whether the attacks run against the line pointed at the hook daemon's network filter. */
export const daemonNetworkFilter = () => network.length > 0;

/**
 * The attacks again with `domains` allowed (`sandbox_network`), lines made as the hook daemon's
 * runtime makes them: pointed at its network filter, a real one, kept by this process as the
 * daemon keeps it (src/host/daemon/network-filters.ts).
 */
export function useDaemonNetworkFilter(domains: string[]): void {
  const filters = new NetworkFilters(memoryLogger());
  network = domains;
  beforeAll(() => serveNetworkFilterFrom({ want: (dir, set) => filters.want(dir, set) }));
  afterAll(() => {
    // The next file of this worker runs its attacks without the filter (vitest.config.ts, isolate).
    network = [];
    serveNetworkFilterFrom(undefined);
    filters.close();
  });
}

export async function decide(
  root: string,
  toolArgs: Record<string, unknown>,
  config: Record<string, unknown> = {},
  extensions: unknown[] = [],
  toolName = 'bash',
) {
  const runtime = await createRuntime({
    extensions: [workflowGuard, ...(extensions as [])],
    cwd: root,
    config: {
      extensions: {
        'workflow-guard': network.length > 0 ? { sandbox_network: network, ...config } : config,
      },
    },
    logger: memoryLogger(),
  });
  return runtime.runTurn({ sessionId: 's' }, (turn) =>
    turn.interceptToolCall({ toolName, toolArgs }),
  );
}

export const options = (root: string) => ({ root, writable: ['plans/', 'handoff/'], network });

/**
 * One tool call as the agent makes it: decided by the guard, then (when it passes) run with the
 * arguments the guard let through, in the folder they name. Says how it went.
 */
export async function call(
  root: string,
  toolArgs: Record<string, unknown>,
  config: Record<string, unknown> = {},
) {
  const outcome = await decide(root, toolArgs, config);
  if (outcome.blocked) return { ran: 'blocked' as const, outcome };
  const args = outcome.value;
  // What passes is a command proven to only read, or exactly the guard's sandboxed form.
  const sandboxed = sandboxedShellCallOf(args, options(root)) !== undefined;
  if (sandboxed && network.length > 0 && !String(args.command).includes('/network-bridge-')) {
    throw new Error(`not the line pointed at the daemon's network filter: ${args.command}`);
  }
  const folder = (args.workdir ?? args.cwd) as string | undefined;
  const ran = run(args.command as string, folder === undefined ? root : join(root, folder));
  return { ran: sandboxed ? ('sandboxed' as const) : ('as-is' as const), outcome, ...ran };
}

/** `word` as one word of a bash line. */
export function shellQuote(word: string): string {
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

/**
 * `h=<path>;` with the path spelled in pieces (`a=/tmp; b=…; h="$a/$b/sandbox";`): the framework
 * refuses a command that names protected ground (docs/trust.md, Protected ground) before the
 * guard sees it, and these attacks are on the sandbox itself, which must hold when the command
 * builds the name at run time.
 */
export function spelledApart(path: string): string {
  const parts = path.split('/').filter((part) => part !== '');
  const names = parts.map((part, index) => `p${index}=${shellQuote(part)};`).join(' ');
  return `${names} h="/${parts.map((_, index) => `$p${index}`).join('/')}";`;
}
