import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { describe, expect, it } from 'vitest';
import { tree, write } from '../support/fixtures.js';
import {
  installBeside,
  installOtherVersion,
  type ProjectInstall,
  projectInstallWithout,
} from '../support/install-without.js';
import { built, hermesAt, root } from '../support/run-bin.js';

/**
 * The sandbox runtime is an optional peer of hermes-extensions (package.json): a default install
 * leaves it out. workflow-guard then cannot run a shell command in the OS sandbox, so it refuses
 * the commands it cannot prove read-only (fail closed), and says which package to install and how.
 * A version other than the one the sandbox is tested with is refused the same way: the sandbox's
 * safety rests on that version's defaults (extensions/workflow-guard/sandbox-attacks.test.ts).
 */

const SANDBOX = '@anthropic-ai/sandbox-runtime';
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  peerDependencies: Record<string, string>;
};
const version = manifest.peerDependencies[SANDBOX] as string;
const installCommand = `npm i -D ${SANDBOX}@${version}`;

/** A $HERMES_HOME whose config names workflow-guard, as the README's quickstart does. */
function homeWithGuard(): string {
  const home = tree();
  write(home, { 'config.yaml': 'extensions:\n  paths:\n    - hermes-extensions/workflow-guard\n' });
  return home;
}

/** `npm test`: a command the guard cannot prove read-only, so without a plan it is sandboxed or refused. */
async function shellCall(install: ProjectInstall, home: string, command: string) {
  const run = await hermesAt(
    install.binFile,
    home,
    install.project,
    'extensions',
    'test',
    'intercept_tool_call',
    '--json',
    '--input',
    JSON.stringify({ toolName: 'bash', toolArgs: { command } }),
  );
  const { outcome } = JSON.parse(run.stdout) as {
    outcome: { blocked: boolean; message?: string };
  };
  return { code: run.code, outcome, stderr: run.stderr };
}

async function doctorLines(install: ProjectInstall, home: string): Promise<string> {
  const run = await hermesAt(install.binFile, home, install.project, 'extensions', 'doctor');
  return run.stdout;
}

describe.runIf(built)('an install without the sandbox runtime', () => {
  it('workflow-guard refuses a command it cannot prove read-only, naming the package and the command that installs it', async () => {
    const install = projectInstallWithout([SANDBOX]);
    const home = homeWithGuard();
    const { code, outcome } = await shellCall(install, home, 'npm test');
    expect(code).toBe(1);
    expect(outcome.blocked).toBe(true);
    expect(outcome.message).toContain(`the sandbox runtime (${SANDBOX}) is not installed`);
    expect(outcome.message).toContain(`run \`${installCommand}\` in ${install.project}`);
  });

  it('still runs a command it proves read-only', async () => {
    const install = projectInstallWithout([SANDBOX]);
    const { outcome } = await shellCall(install, homeWithGuard(), 'ls src');
    expect(outcome.blocked).toBe(false);
  });

  it('doctor says it is missing, that workflow-guard needs it, and the command', async () => {
    const install = projectInstallWithout([SANDBOX]);
    const out = await doctorLines(install, homeWithGuard());
    expect(out).toContain(`! ${SANDBOX}: not installed; workflow-guard (enabled) needs it`);
    expect(out).toContain(`fix: run \`${installCommand}\` in ${install.project}`);
  });

  it('doctor only mentions it when no extension needs it', async () => {
    const install = projectInstallWithout([SANDBOX]);
    const out = await doctorLines(install, tree());
    expect(out).toContain(`i ${SANDBOX}: not installed; nothing enabled needs it`);
    expect(out).toContain(`fix: run \`${installCommand}\` in ${install.project}`);
  });

  it('doctor shows the installed version once it is installed beside hermes-extensions', async () => {
    const install = projectInstallWithout([SANDBOX]);
    installBeside(install, SANDBOX);
    const out = await doctorLines(install, homeWithGuard());
    expect(out).toContain(`✓ ${SANDBOX}: ${version} installed`);
    expect(out).not.toContain(installCommand);
  });
});

/**
 * One `intercept_tool_call` after another in a process that stays up, as the hook daemon and the
 * bridge serve a whole session: the bridge of the installed copy (`extensions serve --stdio`).
 */
function bridgeOf(install: ProjectInstall, home: string) {
  const child = spawn(
    process.execPath,
    [install.binFile, 'extensions', 'serve', '--stdio', '--cwd', install.project],
    { env: { ...process.env, HERMES_HOME: home, HOME: home, HERMES_TRUST_PROJECT: '1' } },
  );
  const answers: Array<Record<string, unknown>> = [];
  const waiting: Array<() => void> = [];
  createInterface({ input: child.stdout }).on('line', (line) => {
    answers.push(JSON.parse(line));
    waiting.shift()?.();
  });
  let id = 0;
  const call = async (method: string, params: unknown) => {
    child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params })}\n`);
    if (answers.length === 0) await new Promise<void>((resolve) => waiting.push(resolve));
    return answers.shift() as { result?: Record<string, unknown>; error?: unknown };
  };
  return { child, call };
}

describe.runIf(built)('installing the sandbox runtime while a process serves', () => {
  it('is seen by the next call: a missing runtime is looked for again, not remembered', async () => {
    const install = projectInstallWithout([SANDBOX]);
    const { child, call } = bridgeOf(install, homeWithGuard());
    try {
      expect(await call('initialize', {})).toMatchObject({ result: {} });
      const turn = await call('turn/start', { session_id: 's' });
      const turnId = turn.result?.turn_id;
      const before = await call('intercept_tool_call', {
        turn_id: turnId,
        tool_name: 'bash',
        tool_args: { command: 'npm test' },
      });
      expect(JSON.stringify(before)).toContain(`run \`${installCommand}\``);
      installBeside(install, SANDBOX);
      const after = await call('intercept_tool_call', {
        turn_id: turnId,
        tool_name: 'bash',
        tool_args: { command: 'npm test' },
      });
      // Now run in the sandbox: the command comes back wrapped, in a bubblewrap line of the
      // framework's own (no network allowed) or the runtime's command line.
      expect(JSON.stringify(after)).not.toContain(installCommand);
      expect(JSON.stringify(after)).toMatch(/--unshare-net|sandbox-runtime/);
    } finally {
      child.kill();
    }
  });
});

describe.runIf(built)('an install with another version of the sandbox runtime', () => {
  it('is refused like a missing one: workflow-guard names the version to install', async () => {
    const install = projectInstallWithout([SANDBOX]);
    installOtherVersion(install, SANDBOX, '0.0.1');
    const { outcome } = await shellCall(install, homeWithGuard(), 'npm test');
    expect(outcome.blocked).toBe(true);
    expect(outcome.message).toContain(
      `${SANDBOX} 0.0.1 is installed, and the sandbox is checked against ${version} only`,
    );
    expect(outcome.message).toContain(`run \`${installCommand}\` in ${install.project}`);
  });

  it('doctor names the installed version and the one to install', async () => {
    const install = projectInstallWithout([SANDBOX]);
    installOtherVersion(install, SANDBOX, '0.0.1');
    const out = await doctorLines(install, homeWithGuard());
    expect(out).toContain(
      `! ${SANDBOX}: 0.0.1 installed, not ${version}; workflow-guard (enabled) needs it`,
    );
    expect(out).toContain(`fix: run \`${installCommand}\` in ${install.project}`);
  });
});
