import {
  chmodSync,
  chownSync,
  lstatSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  statSync,
  symlinkSync,
} from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { rewriteUserFile } from '../../src/fs/user-file.js';
import { claudeCode } from '../../src/host/command-hook/agents.js';
import { installCommandHooks } from '../../src/host/command-hook/settings/hooks-json-install.js';
import { tree } from '../support/fixtures.js';

/**
 * A file of the user's or of an agent's, written whole (src/fs/user-file.ts): the settings the
 * hooks are installed in, Hermes' config, the user's config.yaml. An agent reading it meanwhile
 * reads the old file or the new one: the new one is written beside it and renamed over it, so
 * the path names another file, never the old one truncated.
 */
describe('rewriteUserFile', () => {
  it('replaces the file whole: another file at the path, nothing left beside it', () => {
    const dir = tree({ 'settings.json': '{"model":"x"}\n' });
    const file = join(dir, 'settings.json');
    const before = statSync(file).ino;
    rewriteUserFile(file, '{"model":"y"}\n');
    expect(readFileSync(file, 'utf8')).toBe('{"model":"y"}\n');
    // Written in place, the old file would keep its inode, and be empty for a moment.
    expect(statSync(file).ino).not.toBe(before);
    expect(readdirSync(dir)).toEqual(['settings.json']);
  });

  it('keeps the mode the file had, exactly, whatever the umask', () => {
    const dir = tree({ private: 'a', shared: 'b' });
    chmodSync(join(dir, 'private'), 0o600);
    chmodSync(join(dir, 'shared'), 0o664);
    rewriteUserFile(join(dir, 'private'), 'A');
    rewriteUserFile(join(dir, 'shared'), 'B');
    expect(statSync(join(dir, 'private')).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, 'shared')).mode & 0o777).toBe(0o664);
  });

  it.runIf(process.getuid?.() === 0)(
    "keeps the file's owner where it may (as root, under sudo): the agent can still write it",
    () => {
      const dir = tree({ 'settings.json': '{}\n' });
      const file = join(dir, 'settings.json');
      chownSync(file, 4321, 4322);
      rewriteUserFile(file, '{"a":1}\n');
      expect(statSync(file)).toMatchObject({ uid: 4321, gid: 4322 });
      expect(readFileSync(file, 'utf8')).toBe('{"a":1}\n');
    },
  );

  it('writes where a link leads, and the link stays a link (a dotfiles repository)', () => {
    const dotfiles = tree({ 'claude/settings.json': '{}\n' });
    const home = tree();
    const link = join(home, 'settings.json');
    symlinkSync(join(dotfiles, 'claude/settings.json'), link);
    chmodSync(join(dotfiles, 'claude/settings.json'), 0o640);
    rewriteUserFile(link, '{"a":1}\n');
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readlinkSync(link)).toBe(join(dotfiles, 'claude/settings.json'));
    expect(readFileSync(join(dotfiles, 'claude/settings.json'), 'utf8')).toBe('{"a":1}\n');
    expect(statSync(join(dotfiles, 'claude/settings.json')).mode & 0o777).toBe(0o640);
  });

  it('makes a new file, and its folder, as a plain write would', () => {
    const dir = tree();
    const file = join(dir, 'a', 'b', 'config.yaml');
    rewriteUserFile(file, 'extensions: {}\n');
    expect(readFileSync(file, 'utf8')).toBe('extensions: {}\n');
    expect(statSync(file).mode & 0o777).toBe(0o666 & ~process.umask());
  });

  it("is how hook install writes an agent's settings: a linked settings file stays linked", () => {
    const dotfiles = tree({ 'settings.json': '{\n    "model": "opus"\n}\n' });
    const home = tree();
    const file = join(home, 'settings.json');
    symlinkSync(join(dotfiles, 'settings.json'), file);
    const before = statSync(file).ino;
    installCommandHooks(claudeCode, { file, command: '/usr/bin/hermes hook claude-code' });
    expect(lstatSync(file).isSymbolicLink()).toBe(true);
    const written = readFileSync(join(dotfiles, 'settings.json'), 'utf8');
    expect(JSON.parse(written)).toMatchObject({ model: 'opus', hooks: { PreToolUse: [{}] } });
    // The user's layout (four spaces) kept, and the file replaced whole.
    expect(written).toContain('\n    "model": "opus"');
    expect(statSync(file).ino).not.toBe(before);
  });
});
