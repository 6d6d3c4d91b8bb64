import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { lstatSync, mkdtempSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { createServer as createNetServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sandboxAvailability, sandboxedShellCallOf } from 'hermes-extensions/policy';
import { beforeAll, it } from 'vitest';

/**
 * Whether the OS sandbox works on this machine. Where it does not, the tests that run commands in
 * it are skipped and one test says why; in CI (.ci/run installs what it needs) that test fails.
 */
export const sandbox = sandboxAvailability();

export function sandboxMissingTest(): void {
  if (sandbox.available) return;
  const why = `the OS sandbox is not available here: ${sandbox.reason} (${sandbox.fix})`;
  if (process.env.CI) {
    it('runs the sandboxed commands for real (required in CI)', () => {
      throw new Error(why);
    });
  } else {
    it.skip(`sandboxed commands: skipped, ${why}`, () => {});
  }
}

/**
 * Gives the calling test file a `HERMES_HOME` of its own, where the sandbox's settings files go.
 * Called by each file, not when this module loads: test files share loaded modules
 * (vitest.config.ts).
 */
export function useSandboxSettingsHome(): void {
  beforeAll(() => {
    process.env.HERMES_HOME = mkdtempSync(join(tmpdir(), 'hermes-sandbox-home-'));
  });
}

/**
 * The command inside a shell call's sandbox wrapper, as a hook process whose `HOME` and
 * `HERMES_HOME` were both `home` made it: the settings name folders of that home
 * (extensions/workflow-guard/README.md, The sandbox) and keep its HERMES_HOME read-only
 * (docs/trust.md, Protected ground), so they are made again under the same two.
 */
export function sandboxedUnder(
  home: string,
  input: Record<string, unknown>,
  options: Parameters<typeof sandboxedShellCallOf>[1],
): string | undefined {
  const own = { HOME: process.env.HOME, HERMES_HOME: process.env.HERMES_HOME };
  process.env.HOME = home;
  process.env.HERMES_HOME = home;
  try {
    return sandboxedShellCallOf(input, options);
  } finally {
    for (const [key, value] of Object.entries(own)) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  }
}

/** Runs a command line as the agent's shell tool would: `bash -c` in `cwd`. */
export function runShell(command: string, cwd: string) {
  const run = spawnSync('bash', ['-c', command], { cwd, encoding: 'utf8', timeout: 60_000 });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

/**
 * `runShell` without blocking this process: a server the test runs in this process (a decoy the
 * sandboxed command must not reach) can answer meanwhile, so a test that it was not reached can fail.
 */
export function runShellAsync(
  command: string,
  cwd: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', command], { cwd, env, timeout: 60_000 });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/**
 * A server on this machine that a sandboxed command must not reach: HTTP on `host` (any free
 * port), or a Unix socket at `path`; `reached()` counts the connections it answered.
 */
export async function decoy(where: { host: string } | { path: string }) {
  let reached = 0;
  const server =
    'path' in where
      ? createNetServer((socket) => {
          reached++;
          socket.end('reached\n');
        })
      : createHttpServer((_request, response) => {
          reached++;
          response.end('reached');
        });
  await new Promise<void>((resolve) =>
    'path' in where ? server.listen(where.path, resolve) : server.listen(0, where.host, resolve),
  );
  const address = server.address();
  return {
    port: typeof address === 'object' && address !== null ? address.port : 0,
    reached: () => reached,
    close: () => server.close(),
  };
}

/** A digest of everything under `dir`: names, kinds, link targets and file bytes. */
export function treeDigest(dir: string): string {
  const hash = createHash('sha256');
  const walk = (at: string, name: string) => {
    const stats = lstatSync(at);
    hash.update(`${name}\0${stats.mode}\0`);
    if (stats.isSymbolicLink()) hash.update(readlinkSync(at));
    else if (stats.isFile()) hash.update(readFileSync(at));
    else if (stats.isDirectory()) {
      for (const entry of readdirSync(at).sort()) walk(join(at, entry), `${name}/${entry}`);
    }
  };
  walk(dir, '.');
  return hash.digest('hex');
}
