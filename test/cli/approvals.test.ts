import {
  existsSync,
  mkdirSync,
  readdirSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { storeApproval } from '../../src/host/approval-changes.js';
import { projectFile, projectIdentity } from '../../src/host/approval-store.js';
import { tree } from '../support/fixtures.js';
import { built } from '../support/run-bin.js';
import { hermes } from './hermes-cli.js';

/** Two projects with "always" approvals in one $HERMES_HOME, as an approver's answers leave them. */
async function seeded() {
  const home = tree({ 'config.yaml': '' });
  const project = tree({ '.git/HEAD': '' });
  const other = tree({ '.git/HEAD': '' });
  const test = await storeApproval(home, project, {
    extension: 'gate',
    tool: 'bash',
    args: { command: 'npm test' },
  });
  const build = await storeApproval(home, other, {
    extension: 'gate',
    tool: 'bash',
    args: { command: 'npm run build' },
  });
  return { home, project, other, test, build };
}

describe.runIf(built)('hermes extensions approvals', () => {
  it("lists every project's approvals, or one project's through a symlink, as text or JSON", async () => {
    const { home, project, test, build } = await seeded();
    const all = await hermes(home, 'extensions', 'approvals', 'list');
    expect(all.code).toBe(0);
    expect(all.stdout).toContain(test.id);
    expect(all.stdout).toContain(build.id);
    const link = join(home, 'link');
    symlinkSync(project, link);
    const one = await hermes(home, 'extensions', 'approvals', 'list', '--project', link, '--json');
    expect(one.code).toBe(0);
    expect(JSON.parse(one.stdout)).toEqual([
      { project: realpathSync(project), stale: false, ...test },
    ]);
  });

  it('revokes one approval by id, and says so when there is none', async () => {
    const { home, test, build } = await seeded();
    const revoked = await hermes(home, 'extensions', 'approvals', 'revoke', test.id);
    expect(revoked.code).toBe(0);
    const left = JSON.parse(
      (await hermes(home, 'extensions', 'approvals', 'list', '--json')).stdout,
    );
    expect(left.map((a: { id: string }) => a.id)).toEqual([build.id]);
    const again = await hermes(home, 'extensions', 'approvals', 'revoke', test.id);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/no remembered approval .*approvals list/);
  });

  it('a corrupt store is an error naming the file and the fix; revoke --all clears it', async () => {
    const { home, project } = await seeded();
    const file = projectFile(home, project, projectIdentity(project));
    writeFileSync(file, '{"version": 2}');
    const listed = await hermes(home, 'extensions', 'approvals', 'list');
    expect(listed.code).toBe(1);
    expect(listed.stderr).toContain(file);
    expect(listed.stderr).toMatch(/revoke --all/);
    const cleared = await hermes(home, 'extensions', 'approvals', 'revoke', '--all');
    expect(cleared.code).toBe(0);
    expect(existsSync(file)).toBe(false);
    expect((await hermes(home, 'extensions', 'approvals', 'list')).stdout).toMatch(
      /no remembered approvals/,
    );
  });

  it('a folder re-created at an approved path: its approvals are listed as stale and revoke removes them', async () => {
    const { home, project, test, build } = await seeded();
    rmSync(project, { recursive: true });
    mkdirSync(join(project, '.git'), { recursive: true });
    const text = await hermes(home, 'extensions', 'approvals', 'list');
    expect(text.code).toBe(0);
    const line = text.stdout.split('\n').find((l) => l.includes(test.id));
    expect(line).toMatch(/stale/);
    expect(text.stdout.split('\n').find((l) => l.includes(build.id))).not.toMatch(/stale/);
    const json = await hermes(
      home,
      'extensions',
      'approvals',
      'list',
      '--project',
      project,
      '--json',
    );
    expect(JSON.parse(json.stdout)).toEqual([{ project, stale: true, ...test }]);
    const revoked = await hermes(home, 'extensions', 'approvals', 'revoke', test.id);
    expect(revoked.code).toBe(0);
    const left = JSON.parse(
      (await hermes(home, 'extensions', 'approvals', 'list', '--json')).stdout,
    );
    expect(left.map((a: { id: string }) => a.id)).toEqual([build.id]);
  });

  it('revoke --all --project also removes the stale records of a path whose folder is gone', async () => {
    const { home, project, other } = await seeded();
    rmSync(project, { recursive: true });
    const cleared = await hermes(
      home,
      'extensions',
      'approvals',
      'revoke',
      '--all',
      '--project',
      project,
    );
    expect(cleared.code).toBe(0);
    expect(cleared.stdout).toMatch(/1 project file cleared/);
    expect(readdirSync(join(home, 'approvals'))).toHaveLength(1);
    const left = JSON.parse(
      (await hermes(home, 'extensions', 'approvals', 'list', '--json')).stdout,
    );
    expect(left.map((a: { project: string }) => a.project)).toEqual([other]);
  });
});
