import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectApprovals } from '../../src/host/approval-store.js';
import { tree } from '../support/fixtures.js';
import { distModule, runNodeScript } from '../support/node-script.js';
import { built } from '../support/run-bin.js';
import { hermes } from './hermes-cli.js';

/**
 * "Always" answers of one project given at once by several processes (hooks of parallel tool
 * calls, two agents in one project, a revoke from the command line meanwhile): each is a read of
 * the project's file, a change and a write, so without one writer at a time a write made from an
 * older read drops the answers given in between, and a revoked approval comes back.
 */
const INDEX = distModule('index.js');

/**
 * A process that, once `go` exists, remembers `count` "always" answers of its own for `project`,
 * as a host's approval memory does (`createApprovalMemory`).
 */
function rememberer(home: string, project: string, who: string, count: number, go: string) {
  return runNodeScript(`
    import { existsSync } from 'node:fs';
    import { createApprovalMemory } from ${INDEX};
    const memory = createApprovalMemory({ project: ${JSON.stringify(project)}, home: ${JSON.stringify(home)} });
    process.stdout.write('ready\\n');
    while (!existsSync(${JSON.stringify(go)})) await new Promise((tick) => setTimeout(tick, 5));
    for (let i = 0; i < ${count}; i++)
      await memory.remember('s', { extension: 'gate', tool: 'bash', args: { command: '${who}-' + i } }, 'always');
  `);
}

const commands = (home: string, project: string) =>
  projectApprovals(home, project)
    .approvals.map((approval) => approval.args.command as string)
    .sort();

describe.runIf(built)('"always" approvals given by several processes at once', () => {
  it('keeps every one of them, and a revoke made meanwhile stays made', async () => {
    const home = tree({ 'config.yaml': '' });
    const project = tree({ '.git/HEAD': '' });
    const go = join(tree(), 'go');
    // One approval there before, to revoke while the others are written.
    const first = rememberer(home, project, 'before', 1, go);
    writeFileSync(go, '');
    expect(await first.exited, first.stderr()).toBe(0);
    const [revoked] = projectApprovals(home, project).approvals;
    expect(revoked?.args.command).toBe('before-0');
    const goAll = join(tree(), 'go');
    const writers = ['a', 'b', 'c', 'd', 'e', 'f'].map((who) =>
      rememberer(home, project, who, 15, goAll),
    );
    await Promise.all(writers.map((writer) => writer.printed('ready')));
    writeFileSync(goAll, '');
    const revoke = await hermes(home, 'extensions', 'approvals', 'revoke', revoked?.id as string);
    expect(revoke.code, revoke.stderr).toBe(0);
    for (const writer of writers) expect(await writer.exited, writer.stderr()).toBe(0);
    const expected = ['a', 'b', 'c', 'd', 'e', 'f']
      .flatMap((who) => Array.from({ length: 15 }, (_, i) => `${who}-${i}`))
      .sort();
    expect(commands(home, project)).toEqual(expected);
    // No lock or half-written file is left behind.
    expect(existsSync(`${projectApprovals(home, project).file}.lock`)).toBe(false);
  });
});
