import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { inspectProjectTrust, loadRuntime, trustProject } from 'hermes-extensions';
import { memoryLogger } from 'hermes-extensions/testing';
import { describe, expect, it } from 'vitest';
import { tree } from '../support/fixtures.js';

/**
 * A Cedar policy a project declares is project code (docs/trust.md): trusting the project covers
 * the policy file, and a policy changed since runs only once it is trusted again — until then the
 * policy as trusted stays in force.
 */
const config = 'extensions:\n  project-policy:\n    kind: cedar\n    policy: policy.cedar\n';
const forbid = (reason: string) =>
  `@reason("${reason}")\nforbid(principal, action == Hermes::Action::"bash", resource);\n`;

async function decide(home: string, project: string) {
  const runtime = await loadRuntime({ home, cwd: project, logger: memoryLogger() });
  const outcome = await runtime.runTurn({ sessionId: 's' }, (t) =>
    t.interceptToolCall({ toolName: 'bash', toolArgs: { command: 'ls' } }),
  );
  return { runtime, outcome };
}

describe("a project's declared Cedar policy and trust", () => {
  it('does nothing until the project is trusted, then decides', async () => {
    const home = tree();
    const project = tree({
      '.git/HEAD': '',
      '.hermes/config.yaml': config,
      '.hermes/policy.cedar': forbid('the project forbids bash'),
    });
    expect((await decide(home, project)).outcome.blocked).toBe(false);
    await trustProject(project, home);
    const { outcome } = await decide(home, project);
    expect(outcome).toMatchObject({ blocked: true, message: 'the project forbids bash' });
  });

  it('covers the policy file: a change waits for trust, and the policy as trusted stays in force', async () => {
    const home = tree();
    const project = tree({
      '.git/HEAD': '',
      '.hermes/config.yaml': config,
      '.hermes/policy.cedar': forbid('as trusted'),
    });
    await trustProject(project, home);
    writeFileSync(join(project, '.hermes/policy.cedar'), 'permit(principal, action, resource);\n');
    expect(inspectProjectTrust({ cwd: project, home }).state).toBe('changed');
    const { outcome } = await decide(home, project);
    expect(outcome).toMatchObject({ blocked: true, message: 'as trusted' });
  });

  it('refuses a policy file outside the project', async () => {
    const outside = tree({ 'policy.cedar': forbid('outside') });
    const project = tree({
      '.git/HEAD': '',
      '.hermes/config.yaml': `extensions:\n  project-policy:\n    kind: cedar\n    policy: ${outside}/policy.cedar\n`,
    });
    const runtime = await loadRuntime({
      home: tree(),
      cwd: project,
      trust: true,
      logger: memoryLogger(),
    });
    expect(runtime.extensions[0]?.reason).toContain('is outside the project');
  });
});
