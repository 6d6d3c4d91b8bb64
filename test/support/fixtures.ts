import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

const made: string[] = [];

/** Removes the folders `tree` made; after each test (test/support/each-file.ts). */
export function removeTrees(): void {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
}

/**
 * A real folder tree in a temp dir: `{ 'a/b.ts': 'source' }`. Returns the folder (real path, so
 * comparisons with resolved paths hold where the temp dir is a symlink).
 */
export function tree(files: Record<string, string> = {}): string {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'hermes-ext-test-')));
  made.push(root);
  write(root, files);
  return root;
}

export function write(root: string, files: Record<string, string>): void {
  for (const [path, content] of Object.entries(files)) {
    const file = join(root, path);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, content);
  }
}

/** A TypeScript extension that registers one pass-through handler per hook it lists. */
export function tsExtension(name: string, body = '', extra = ''): string {
  return `import { defineExtension, block, pass } from 'hermes-extensions';
import { z } from 'zod';
${extra}
export default defineExtension({
  name: '${name}',
  version: '1.0.0',
  setup(hermes) {
    ${body}
  },
});
`;
}

/** A JSON-lines file (an observer's or audit log), a record per line; none when it is missing. */
export function jsonLines(file: string): Record<string, unknown>[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}
