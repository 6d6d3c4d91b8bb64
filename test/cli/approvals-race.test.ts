import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectApprovals } from '../../src/host/approval-store.js';
import { tree } from '../support/fixtures.js';
import { distModule, runNodeScript } from '../support/node-script.js';
import { built } from '../support/run-bin.js';
import { hermes } from './hermes-cli.js';

/**
 * The remembered "always" approvals of one project, changed by separate processes at once: many
 * answers stored by two processes, `approvals revoke` from the command line racing a process
 * that stores, and an answer to an ask that began before a revoke of the same approval.
 */
const INDEX = distModule('index.js');

const grant = (command: string) => ({ extension: 'gate', tool: 'bash', args: { command } });

const commands = (home: string, project: string) =>
  projectApprovals(home, project)
    .approvals.map((approval) => approval.args.command as string)
    .sort();

/** Stores `prefix-0`, `prefix-1`, … until `stop` exists (or `count` are stored), once `go` does. */
function storer(
  home: string,
  project: string,
  prefix: string,
  go: string,
  stop: string,
  count: number,
) {
  return runNodeScript(`
    import { existsSync } from 'node:fs';
    import { createApprovalMemory } from ${INDEX};
    const memory = createApprovalMemory({ project: ${JSON.stringify(project)}, home: ${JSON.stringify(home)} });
    process.stdout.write('ready\\n');
    while (!existsSync(${JSON.stringify(go)})) await new Promise((tick) => setTimeout(tick, 5));
    let i = 0;
    for (; i < ${count} && !existsSync(${JSON.stringify(stop)}); i++)
      await memory.remember('s', { extension: 'gate', tool: 'bash', args: { command: '${prefix}-' + i } }, 'always');
    process.stdout.write('stored ' + i + '\\n');
  `);
}

const storedCount = (stdout: string) => Number(/stored (\d+)/.exec(stdout)?.[1]);

describe.runIf(built)('remembered approvals changed by separate processes', () => {
  it('two processes storing 150 approvals each lose none', async () => {
    const home = tree({ 'config.yaml': '' });
    const project = tree({ '.git/HEAD': '' });
    const base = tree();
    const [go, stop] = [join(base, 'go'), join(base, 'stop')];
    const writers = ['a', 'b'].map((who) => storer(home, project, who, go, stop, 150));
    await Promise.all(writers.map((writer) => writer.printed('ready')));
    writeFileSync(go, '');
    for (const writer of writers) expect(await writer.exited, writer.stderr()).toBe(0);
    const expected = ['a', 'b'].flatMap((who) =>
      Array.from({ length: 150 }, (_, i) => `${who}-${i}`),
    );
    expect(commands(home, project)).toEqual(expected.sort());
  });

  it('an `approvals revoke` racing a process that stores is never written back', async () => {
    const home = tree({ 'config.yaml': '' });
    const project = tree({ '.git/HEAD': '' });
    const base = tree();
    // The approvals to revoke, stored before.
    const seed = storer(home, project, 'old', join(base, 'seed'), join(base, 'never'), 6);
    writeFileSync(join(base, 'seed'), '');
    expect(await seed.exited, seed.stderr()).toBe(0);
    const olds = projectApprovals(home, project).approvals;
    expect(olds).toHaveLength(6);
    const [go, stop] = [join(base, 'go'), join(base, 'stop')];
    const writer = storer(home, project, 'new', go, stop, 400);
    await writer.printed('ready');
    writeFileSync(go, '');
    // Each revoke is one trial: a read, a change and a write while the writer writes.
    for (const old of olds) {
      const revoke = await hermes(home, 'extensions', 'approvals', 'revoke', old.id);
      expect(revoke.code, revoke.stderr).toBe(0);
    }
    writeFileSync(stop, '');
    expect(await writer.exited, writer.stderr()).toBe(0);
    const written = storedCount(writer.stdout());
    expect(written).toBeGreaterThan(0);
    expect(commands(home, project)).toEqual(
      Array.from({ length: written }, (_, i) => `new-${i}`).sort(),
    );
    expect(existsSync(`${projectApprovals(home, project).file}.lock`)).toBe(false);
  });

  for (const how of ['revoke <id>', 'revoke --all']) {
    it(`an answer to an ask that began before a ${how} of that approval does not bring it back`, async () => {
      const home = tree({ 'config.yaml': '' });
      const project = tree({ '.git/HEAD': '' });
      const base = tree();
      const go = join(base, 'go');
      // A second ask of the call, begun (memory consulted: nothing) before the first was answered.
      const asker = runNodeScript(`
        import { existsSync } from 'node:fs';
        import { createApprovalMemory } from ${INDEX};
        const memory = createApprovalMemory({ project: ${JSON.stringify(project)}, home: ${JSON.stringify(home)} });
        const askedAt = new Date();
        const covered = memory.covers('s2', { extension: 'gate', tool: 'bash', args: { command: 'rm -rf build' } });
        process.stdout.write('asking ' + covered + '\\n');
        while (!existsSync(${JSON.stringify(go)})) await new Promise((tick) => setTimeout(tick, 5));
        try {
          await memory.remember('s2', ${JSON.stringify(grant('rm -rf build'))}, 'always', askedAt);
          process.stdout.write('stored\\n');
        } catch (error) {
          process.stdout.write('refused: ' + error.message + '\\n');
        }
      `);
      await asker.printed('asking undefined');
      // The first ask's "always", then its revoke from the command line.
      const stored = runNodeScript(`
        import { createApprovalMemory } from ${INDEX};
        const memory = createApprovalMemory({ project: ${JSON.stringify(project)}, home: ${JSON.stringify(home)} });
        await memory.remember('s1', ${JSON.stringify(grant('rm -rf build'))}, 'always');
      `);
      expect(await stored.exited, stored.stderr()).toBe(0);
      const [approval] = projectApprovals(home, project).approvals;
      expect(approval?.args.command).toBe('rm -rf build');
      const args = how === 'revoke --all' ? ['--all'] : [approval?.id as string];
      const revoke = await hermes(home, 'extensions', 'approvals', 'revoke', ...args);
      expect(revoke.code, revoke.stderr).toBe(0);
      writeFileSync(go, '');
      expect(await asker.exited, asker.stderr()).toBe(0);
      expect(asker.stdout()).toMatch(/refused: .*revoked while the person was asked/);
      expect(commands(home, project)).toEqual([]);
      const listed = await hermes(home, 'extensions', 'approvals', 'list');
      expect(listed.stdout).toMatch(/no remembered approvals/);
    });
  }
});
