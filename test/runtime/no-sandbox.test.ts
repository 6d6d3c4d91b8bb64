import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadRuntime } from 'hermes-extensions';
import { groundSandboxAvailability } from 'hermes-extensions/policy';
import { memoryLogger } from 'hermes-extensions/testing';
import { beforeEach, describe, expect, it } from 'vitest';
import { tree } from '../support/fixtures.js';

/**
 * Where the protected-ground sandbox cannot run (docs/trust.md, Protected ground), a shell command
 * the rule cannot show to leave protected ground alone is refused, saying why and how to go on;
 * `extensions.no_sandbox: run` in the user's own config runs it unsandboxed, and the same key in
 * a project's config is ignored. The sandbox is made unable to run for real: `$HERMES_HOME/ground-sandbox`,
 * where it keeps its lock, is a file.
 */
let user: string;
let home: string;
let project: string;

beforeEach(() => {
  user = tree({});
  home = join(user, '.hermes');
  mkdirSync(home);
  writeFileSync(join(home, 'ground-sandbox'), 'not a folder\n');
  process.env.HOME = user;
  process.env.HERMES_HOME = home;
  project = tree({ '.git/HEAD': '', 'src/a.ts': 'export const a = 1;\n' });
});

async function decide(command: string, trust = false) {
  const runtime = await loadRuntime({ home, cwd: project, trust, logger: memoryLogger() });
  try {
    const outcome = await runtime.runTurn({ sessionId: 's' }, (turn) =>
      turn.interceptToolCall({ toolName: 'Bash', toolArgs: { command } }),
    );
    return { outcome, diagnostics: runtime.diagnostics.map((d) => d.code) };
  } finally {
    await runtime.close();
  }
}

describe.runIf(groundSandboxAvailability().available)('where the sandbox cannot run', () => {
  it('refuses a command it cannot read, saying why and how to go on; a read runs', async () => {
    const { outcome } = await decide(`python3 -c "open('x', 'w')"`);
    expect(outcome).toMatchObject({ blocked: true, blockedBy: 'hermes' });
    const message = outcome.blocked ? outcome.message : '';
    expect(message).toContain('cannot run in the OS sandbox');
    expect(message).toContain('lock');
    expect(message).toContain('extensions.no_sandbox: run');
    const read = await decide('cat src/a.ts');
    expect(read.outcome).toMatchObject({ blocked: false, changed: false });
  });

  it('runs it unsandboxed when the user’s own config accepts the risk', async () => {
    writeFileSync(join(home, 'config.yaml'), 'extensions:\n  no_sandbox: run\n');
    const { outcome } = await decide(`python3 -c "open('x', 'w')"`);
    expect(outcome).toMatchObject({ blocked: false, changed: false });
  });

  it('ignores the key in a project’s config', async () => {
    mkdirSync(join(project, '.hermes'));
    writeFileSync(join(project, '.hermes/config.yaml'), 'extensions:\n  no_sandbox: run\n');
    const { outcome, diagnostics } = await decide(`python3 -c "open('x', 'w')"`, true);
    expect(diagnostics).toContain('NO_SANDBOX_IN_PROJECT');
    expect(outcome).toMatchObject({ blocked: true, blockedBy: 'hermes' });
    expect(existsSync(join(project, 'x'))).toBe(false);
  });
});
