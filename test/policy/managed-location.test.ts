import { chmodSync, chownSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { locationFrom, systemManagedDir } from '../../src/policy/protected/managed-location.js';
import { removeTrees, tree } from '../support/fixtures.js';

/**
 * Which `managed-location` file names the managed folder (src/policy/protected/managed-location.ts):
 * only one root owns, in a folder root owns, that no one else can write. The agent runs as the
 * user: every file it could write or put there is refused, and the system folder stays.
 */
const root = process.getuid?.() === 0;
const SYSTEM = '/etc/hermes-extensions';

function pointer(content = '/opt/acme/hermes-policy\n') {
  const dir = tree();
  chmodSync(dir, 0o755);
  const file = join(dir, 'managed-location');
  writeFileSync(file, content, { mode: 0o644 });
  chmodSync(file, 0o644);
  return { dir, file };
}

afterEach(removeTrees);

describe('the managed location', () => {
  it('is the system folder of the platform when no file names another', () => {
    expect(systemManagedDir('linux')).toBe('/etc/hermes-extensions');
    expect(systemManagedDir('darwin')).toBe('/Library/Application Support/hermes-extensions');
    expect(locationFrom(join(tree(), 'managed-location'), SYSTEM)).toEqual({
      dir: SYSTEM,
      from: 'system',
    });
  });

  it.runIf(root)('is the folder a root-owned file names, in a root-owned folder', () => {
    const { file } = pointer();
    expect(locationFrom(file, SYSTEM)).toEqual({ dir: '/opt/acme/hermes-policy', from: 'package' });
  });

  it('refuses a file the user owns (the agent could write it)', () => {
    const { file } = pointer();
    if (root) chownSync(file, 1000, 1000);
    expect(locationFrom(file, SYSTEM)).toMatchObject({
      dir: SYSTEM,
      refused: expect.stringMatching(/is not owned by root/),
    });
  });

  it('refuses a file in a folder the user owns (the agent could put another there)', () => {
    const { dir, file } = pointer();
    if (root) chownSync(dir, 1000, 1000);
    expect(locationFrom(file, SYSTEM)).toMatchObject({
      dir: SYSTEM,
      refused: expect.stringMatching(/not owned by root|writable/),
    });
  });

  it('refuses a file or folder others may write', () => {
    const one = pointer();
    chmodSync(one.file, 0o666);
    expect(locationFrom(one.file, SYSTEM).refused).toMatch(
      /writable by its group or by others|not owned/,
    );
    const two = pointer();
    chmodSync(two.dir, 0o777);
    expect(locationFrom(two.file, SYSTEM).refused).toMatch(
      /writable by its group or by others|not owned/,
    );
  });

  it('refuses a link, and a content that is not one absolute path', () => {
    const { dir, file } = pointer();
    const link = join(dir, 'linked');
    symlinkSync(file, link);
    expect(locationFrom(link, SYSTEM).refused).toMatch(/not a plain file/);
    const relative = pointer('policy\n');
    expect(locationFrom(relative.file, SYSTEM)).toMatchObject({ dir: SYSTEM });
    expect(locationFrom(relative.file, SYSTEM).refused).toBeDefined();
    const folder = tree();
    mkdirSync(join(folder, 'managed-location'));
    expect(locationFrom(join(folder, 'managed-location'), SYSTEM).refused).toMatch(
      /not a plain file/,
    );
  });
});
