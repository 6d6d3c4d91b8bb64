import { symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, expect, it } from 'vitest';
import { tree } from '../../test/support/fixtures.js';
import { DEFAULT_ALLOW, DEFAULT_FILES } from './config.js';
import { secretFilesOnDisk } from './on-disk.js';
import { SecretFiles } from './secret-files.js';

/** The files the sandboxes hide (README.md, In the sandbox), found on the disk as it is. */
let home: string;

beforeEach(() => {
  home = tree({ '.netrc': 'x', '.ssh/id_rsa': 'x', '.ssh/id_rsa.pub': 'x', 'deep/.env': 'x' });
  process.env.HOME = home;
});

function found(root: string, files: string[] = [], allow: string[] = []) {
  const patterns = [...DEFAULT_FILES, ...files];
  const secrets = new SecretFiles(root, patterns, [...DEFAULT_ALLOW, ...allow]);
  return secretFilesOnDisk(root, secrets, patterns);
}

it('finds the project’s secret files by name, where they really are, and the home folder’s', () => {
  const root = tree({
    '.env': 'x',
    'app/.env.local': 'x',
    'app/.env.example': 'x',
    'certs/server.key': 'x',
    'config/credentials.yml': 'x',
    'node_modules/pkg/.env': 'x',
    '.git/.env': 'x',
    '.env.d/notes.txt': 'x',
    'src/index.ts': 'x',
  });
  symlinkSync(join(home, 'deep/.env'), join(root, 'linked.env'));
  symlinkSync('.env', join(root, 'notes.txt'));
  const { files, incomplete } = found(root, ['config/credentials.yml'], ['certs/*.key']);
  expect(incomplete).toBe(false);
  expect(files).toEqual(
    [
      join(root, '.env'),
      join(root, 'app/.env.local'),
      join(root, 'config/credentials.yml'),
      join(home, '.netrc'),
      join(home, '.ssh/id_rsa'),
      join(home, 'deep/.env'),
    ].sort(),
  );
});
