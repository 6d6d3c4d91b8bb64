import { chmodSync, mkdirSync, readdirSync, statSync, symlinkSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sha256 } from '../../src/fs/digest.js';
import { type FileRecord, fingerprintOf, recordOf } from '../../src/trust/records.js';
import { writeTrust } from '../../src/trust/store.js';
import {
  copiesFolder,
  keepTrustedCopies,
  pruneTrustedCopies,
  readTrustedCopy,
} from '../../src/trust/trusted-copies.js';
import { tree, write } from '../support/fixtures.js';

const record = (path: string, text: string | Buffer) => recordOf(path, Buffer.from(text));

/** `home`'s trust record for `root`, as `hermes extensions trust` writes one. */
function recordTrust(home: string, projects: Record<string, FileRecord[]>) {
  const trustedAt = new Date().toISOString();
  writeTrust(
    home,
    Object.fromEntries(
      Object.entries(projects).map(([root, files]) => [
        root,
        { fingerprint: fingerprintOf(files), files, paths: [], trustedAt },
      ]),
    ),
  );
}

describe('trusted copies', () => {
  it('keeps small text files in a folder only the user can read, narrowing a wider one', () => {
    const home = tree();
    mkdirSync(copiesFolder(home), { mode: 0o755 });
    chmodSync(copiesFolder(home), 0o755);
    const root = tree({ 'a.ts': 'export {};\n' });
    const files = [record('a.ts', 'export {};\n')];
    recordTrust(home, { [root]: files });
    expect(keepTrustedCopies(home, root, files)).toBe(1);
    expect(statSync(copiesFolder(home)).mode & 0o777).toBe(0o700);
    const copy = join(copiesFolder(home), sha256('export {};\n'));
    expect(statSync(copy).mode & 0o777).toBe(0o600);
    expect(readTrustedCopy(home, sha256('export {};\n'))?.toString()).toBe('export {};\n');
  });

  it('keeps no copy of a file that changed since it was recorded, nor of a large or binary one', () => {
    const home = tree();
    const big = `${'x'.repeat(64 * 1024)}\n`;
    const root = tree({ 'a.ts': 'now\n', 'big.ts': big, 'logo.png': 'P\0' });
    const files = [record('a.ts', 'then\n'), record('big.ts', big), record('logo.png', 'P\0')];
    recordTrust(home, { [root]: files });
    expect(keepTrustedCopies(home, root, files)).toBe(0);
    expect(readdirSync(copiesFolder(home))).toEqual([]);
  });

  it('does not use a copy whose content is not what its name says', () => {
    const home = tree();
    const digest = sha256('trusted\n');
    write(copiesFolder(home), { [digest]: 'something else\n' });
    expect(readTrustedCopy(home, digest)).toBeUndefined();
    expect(readTrustedCopy(home, '../trusted-projects.json')).toBeUndefined();
  });

  it('prunes copies no record of any project refers to, and stale temporary files', () => {
    const home = tree();
    const one = tree({ 'a.ts': 'a\n' });
    const two = tree({ 'b.ts': 'b\n' });
    recordTrust(home, { [one]: [record('a.ts', 'a\n')], [two]: [record('b.ts', 'b\n')] });
    keepTrustedCopies(home, one, [record('a.ts', 'a\n')]);
    keepTrustedCopies(home, two, [record('b.ts', 'b\n')]);
    const stale = `${sha256('c\n')}.123.tmp`;
    const fresh = `${sha256('d\n')}.456.tmp`;
    write(copiesFolder(home), { [sha256('old\n')]: 'old\n', [stale]: 'c\n', [fresh]: 'd\n' });
    const hourAgo = new Date(Date.now() - 2 * 60 * 60 * 1000);
    utimesSync(join(copiesFolder(home), stale), hourAgo, hourAgo);
    expect(pruneTrustedCopies(home)).toBe(1);
    expect(readdirSync(copiesFolder(home)).sort()).toEqual(
      [sha256('a\n'), sha256('b\n'), fresh].sort(),
    );
    recordTrust(home, { [one]: [record('a.ts', 'a\n')] });
    expect(pruneTrustedCopies(home)).toBe(1);
    expect(readdirSync(copiesFolder(home)).sort()).toEqual([sha256('a\n'), fresh].sort());
  });

  it('never writes through a link in place of the folder', () => {
    const home = tree();
    const elsewhere = tree();
    symlinkSync(elsewhere, copiesFolder(home));
    const root = tree({ 'a.ts': 'a\n' });
    expect(() => keepTrustedCopies(home, root, [record('a.ts', 'a\n')])).toThrow(/not a folder/);
    expect(readdirSync(elsewhere)).toEqual([]);
  });
});
