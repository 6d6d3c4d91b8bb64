import {
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  digestOf,
  kindOf,
  listingOf,
  type ReadRecord,
  stampOf,
} from '../../../src/host/daemon/read-stamps.js';
import { WatchSet } from '../../../src/host/daemon/watch-set.js';
import { tree, write } from '../../support/fixtures.js';

/** What the read recorder (src/host/daemon/read-recorder.ts) records for each kind of look. */
const read = (path: string): ReadRecord => {
  const value = stampOf(path);
  return { how: 'read', path, value, digest: digestOf(readFileSync(path)) };
};
const listed = (path: string): ReadRecord => ({
  how: 'list',
  path,
  value: listingOf(readdirSync(path)),
});
const stat = (path: string): ReadRecord => ({ how: 'stat', path, value: kindOf(statSync(path)) });

describe('a watch set', () => {
  it('holds while a file read keeps its bytes, touched or rewritten alike', () => {
    const dir = tree({ 'rules.json': '{"denied":["rm"]}' });
    const file = join(dir, 'rules.json');
    const watch = new WatchSet([read(file)]);
    expect(watch.changed()).toBe(false);
    utimesSync(file, new Date(), new Date(Date.now() + 5_000));
    writeFileSync(file, '{"denied":["rm"]}');
    expect(watch.changed()).toBe(false);
    writeFileSync(file, '{"denied":["rm","ls"]}');
    expect(watch.changed()).toBe(true);
  });

  it('sees a file read that is gone, and one that was missing and appears', () => {
    const dir = tree({ 'a.ts': 'x' });
    const gone = new WatchSet([read(join(dir, 'a.ts'))]);
    const appears = new WatchSet([{ how: 'stat', path: join(dir, 'b.ts'), value: 'missing' }]);
    write(dir, { 'b.ts': 'y' });
    rmSync(join(dir, 'a.ts'));
    expect(appears.changed()).toBe(true);
    expect(gone.changed()).toBe(true);
  });

  it('of a folder listed or looked at, not what is written inside its entries', () => {
    const dir = tree({ 'audit/index.ts': 'x' });
    const extension = join(dir, 'audit');
    const watch = new WatchSet([listed(dir), stat(extension), read(join(extension, 'index.ts'))]);
    write(dir, { 'audit/audit.log': 'call\n', 'audit/runs/1.txt': '' });
    expect(watch.changed()).toBe(false);
    write(dir, { 'other/index.ts': 'y' });
    expect(watch.changed()).toBe(true);
  });

  it('of paths that were not there: holds until one appears, whatever else comes and goes', () => {
    const dir = tree({ 'index.ts': 'x' });
    const missing = (path: string, how: 'stat' | 'exists' = 'stat'): ReadRecord => ({
      how,
      path,
      value: how === 'exists' ? 'no' : 'missing',
    });
    const watch = new WatchSet([
      missing(join(dir, 'index.ts', 'helper.ts')),
      missing(join(dir, 'gone', 'x.ts')),
      missing(join(dir, 'helper.ts')),
      missing(join(dir, 'helper.js'), 'exists'),
    ]);
    write(dir, { 'notes.txt': '', 'other/x.ts': '' });
    // A link to nothing where a try looked: listed, yet still not there to stat.
    symlinkSync(join(dir, 'nowhere'), join(dir, 'helper.ts'));
    expect(watch.changed()).toBe(false);
    write(dir, { 'helper.js': '' });
    expect(watch.changed()).toBe(true);
  });

  it('counts the first look at a path: it was taken before any later read', () => {
    const dir = tree({ 'a.ts': 'one' });
    const file = join(dir, 'a.ts');
    const first = read(file);
    writeFileSync(file, 'two');
    expect(new WatchSet([first, read(file)]).changed()).toBe(true);
  });

  // A folder's listing is kept while the folder's own stamp stays, once the folder has been still
  // for longer than a file system's clock can blur (`settledMs`, here short enough to wait out).
  describe('with folder listings kept', () => {
    const settledMs = 40;
    const settle = () => new Promise((done) => setTimeout(done, settledMs * 2));
    const missing = (path: string): ReadRecord => ({ how: 'stat', path, value: 'missing' });

    it('still sees a missing path appear in a folder listed before', async () => {
      const dir = tree({ 'index.ts': 'x' });
      const watch = new WatchSet([missing(join(dir, 'helper.ts'))], { settledMs });
      await settle();
      expect(watch.changed()).toBe(false);
      expect(watch.changed()).toBe(false);
      write(dir, { 'helper.ts': '' });
      expect(watch.changed()).toBe(true);
    });

    it('sees one appear in another folder put where the listed one was', async () => {
      const root = tree({ 'lib/index.ts': 'x', 'next/index.ts': 'x', 'next/helper.ts': '' });
      const watch = new WatchSet([missing(join(root, 'lib', 'helper.ts'))], { settledMs });
      await settle();
      expect(watch.changed()).toBe(false);
      rmSync(join(root, 'lib'), { recursive: true });
      renameSync(join(root, 'next'), join(root, 'lib'));
      expect(watch.changed()).toBe(true);
    });

    it('sees one appear through a link that now leads to another folder', async () => {
      const root = tree({ 'a/index.ts': 'x', 'b/helper.ts': '' });
      symlinkSync(join(root, 'a'), join(root, 'lib'));
      const watch = new WatchSet([missing(join(root, 'lib', 'helper.ts'))], { settledMs });
      await settle();
      expect(watch.changed()).toBe(false);
      rmSync(join(root, 'lib'));
      symlinkSync(join(root, 'b'), join(root, 'lib'));
      expect(watch.changed()).toBe(true);
    });

    it('sees a folder that was not there appear with the path in it', async () => {
      const root = tree({ 'index.ts': 'x' });
      const watch = new WatchSet([missing(join(root, 'lib', 'helper.ts'))], { settledMs });
      await settle();
      expect(watch.changed()).toBe(false);
      write(root, { 'lib/helper.ts': '' });
      expect(watch.changed()).toBe(true);
    });
  });
});
