import { mkdirSync, rmdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { protectedGround } from '../../src/policy/protected/ground.js';
import { groundMounts } from '../../src/policy/sandbox/ground-mounts.js';
import { tree } from '../support/fixtures.js';

/**
 * The protected-ground sandbox's mounts are made again to recognise a line the agent sends back:
 * they must not depend on the empty folder another sandbox, running meanwhile, leaves as a mount
 * point above a place that does not exist (`.cursor` for `.cursor/hooks.json`).
 */
describe('the protected-ground mounts', () => {
  it('are the same while an empty folder stands where a place’s missing folder would be', () => {
    const root = tree({ '.git/HEAD': '' });
    const ground = protectedGround(root);
    const before = groundMounts(ground);
    expect(before.blocked).toContainEqual({ path: join(root, '.cursor'), kind: 'folder' });
    mkdirSync(join(root, '.cursor'));
    expect(groundMounts(ground)).toEqual(before);
    rmdirSync(join(root, '.cursor'));
  });

  // Each place is looked at before it is resolved (a resolve that fails costs an exception): the
  // mounts must be those of a resolve tried first, whatever is at the place.
  it('bind a place reached through a link where the link leads', () => {
    const elsewhere = tree({ 'settings.json': '{}' });
    const root = tree({ '.git/HEAD': '' });
    symlinkSync(elsewhere, join(root, '.claude'));
    const mounts = groundMounts(protectedGround(root));
    expect(mounts.readOnly).toContain(join(elsewhere, 'settings.json'));
    expect(mounts.readOnly).not.toContain(join(root, '.claude', 'settings.json'));
  });

  it('block a missing place below a link where the link leads, not at the link', () => {
    const elsewhere = tree({ 'notes.txt': '' });
    const root = tree({ '.git/HEAD': '' });
    symlinkSync(elsewhere, join(root, '.claude'));
    const blocked = groundMounts(protectedGround(root)).blocked;
    expect(blocked).toContainEqual({ path: join(elsewhere, 'settings.json'), kind: 'file' });
    expect(blocked.map((b) => b.path)).not.toContain(join(root, '.claude'));
  });

  it('block where a link that leads nowhere leads, and leave out a place that loops', () => {
    const root = tree({ '.git/HEAD': '' });
    symlinkSync(join(root, 'gone'), join(root, '.cursor'));
    symlinkSync(join(root, '.opencode'), join(root, '.opencode'));
    const mounts = groundMounts(protectedGround(root));
    const named = [...mounts.readOnly, ...mounts.blocked.map((b) => b.path)];
    expect(mounts.blocked).toContainEqual({ path: join(root, 'gone'), kind: 'folder' });
    expect(named.filter((path) => path.startsWith(join(root, '.cursor')))).toEqual([]);
    expect(named.filter((path) => path.startsWith(join(root, '.opencode')))).toEqual([]);
  });

  it('bind a file where a place’s folder would be as it is, and nothing below it', () => {
    const root = tree({ '.git/HEAD': '', '.claude': 'not a folder' });
    const mounts = groundMounts(protectedGround(root));
    expect(mounts.blocked.map((b) => b.path)).not.toContain(join(root, '.claude', 'settings.json'));
    expect(mounts.readOnly).not.toContain(join(root, '.claude', 'settings.json'));
  });

  // bash reads the first of ~/.bash_profile, ~/.bash_login and ~/.profile: an empty mount point
  // that blocks a missing one would stand, on the disk, in front of the user's ~/.profile for
  // every login shell started meanwhile. Kept read-only where it exists, and blocked by a stand-in
  // that reads the later files where it does not (test/policy/ground-stand-in.test.ts runs it).
  it("keep the home's start-up files read-only, and block those bash reads in front of another with a stand-in", () => {
    const before = process.env.HOME;
    try {
      const home = tree({ '.profile': 'export A=1\n', '.zshrc': '' });
      process.env.HOME = home;
      const root = tree({ '.git/HEAD': '' });
      const mounts = groundMounts(protectedGround(root));
      expect(mounts.readOnly).toContain(join(home, '.profile'));
      expect(mounts.readOnly).toContain(join(home, '.zshrc'));
      const blocked = mounts.blocked.map((b) => b.path);
      expect(blocked).toContain(join(home, '.zshenv'));
      expect(blocked).toContain(join(home, '.bashrc'));
      for (const name of ['.bash_profile', '.bash_login']) {
        const entry = mounts.blocked.find((b) => b.path === join(home, name));
        expect(entry?.standIn, name).toContain(`. '${join(home, '.profile')}'`);
      }

      const bare = tree({ '.keep': '' });
      process.env.HOME = bare;
      const none = groundMounts(protectedGround(root)).blocked;
      expect(none).toContainEqual({ path: join(bare, '.profile'), kind: 'file' });
      for (const name of ['.bash_profile', '.bash_login']) {
        expect(none.find((b) => b.path === join(bare, name))?.kind, name).toBe('file');
      }
      expect(none).toContainEqual({ path: join(bare, '.config'), kind: 'folder' });
    } finally {
      process.env.HOME = before;
    }
  });
});
