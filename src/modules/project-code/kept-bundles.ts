import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sha256 } from '../../fs/digest.js';
import { replaceFile } from '../../fs/locked-file.js';
import { bundlerVersion } from './bundle-format.js';

/** What a bundle was made from: each input's recorded path and digest, and the code's digest. */
interface Index {
  inputs: Array<[path: string, sha256: string]>;
  code: string;
}

/**
 * The bundle kept for `entry` if it was made from files the record `allowed` holds with the same
 * digests (and by this bundler); else undefined, and the caller bundles again. The code is kept
 * apart, named by its digest, and checked against it when read.
 */
export function keptBundle(
  cacheDir: string,
  entry: string,
  allowed: ReadonlyMap<string, string>,
): string | undefined {
  let index: Index;
  try {
    index = JSON.parse(readFileSync(indexFile(cacheDir, entry), 'utf8')) as Index;
  } catch {
    return undefined;
  }
  if (!Array.isArray(index?.inputs) || typeof index.code !== 'string') return undefined;
  for (const input of index.inputs) {
    if (!Array.isArray(input) || allowed.get(String(input[0])) !== input[1]) return undefined;
  }
  try {
    const code = readFileSync(join(cacheDir, `${index.code}.mjs`), 'utf8');
    return sha256(code) === index.code ? code : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Keeps a bundle made from checked (or reviewed) bytes, for the next load of `entry`. No lock: each
 * file is written whole and read back checked, and of two writers of one entry's index (two loads,
 * a trust) the last wins, each naming a bundle made from bytes its record allowed.
 */
export function keepBundle(
  cacheDir: string,
  entry: string,
  bundle: { code: string; inputs: ReadonlyArray<{ path: string; sha256: string }> },
): void {
  mkdirSync(cacheDir, { recursive: true, mode: 0o700 });
  const code = sha256(bundle.code);
  replaceFile(join(cacheDir, `${code}.mjs`), bundle.code);
  const index: Index = { inputs: bundle.inputs.map((i) => [i.path, i.sha256]), code };
  replaceFile(indexFile(cacheDir, entry), JSON.stringify(index));
}

/** One index per entry and bundler: the latest bundle made of it. */
function indexFile(cacheDir: string, entry: string): string {
  return join(cacheDir, `${sha256(JSON.stringify([bundlerVersion(), entry]))}.json`);
}
