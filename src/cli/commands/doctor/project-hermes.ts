import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';

/**
 * What a project's `node_modules/.bin/hermes` is, read from its files alone: doctor runs none of
 * a project's programs (a cloned repository ships its `node_modules` as it likes, and doctor is
 * run before anything is trusted). npm links the bin to `hermes-extensions/bin/hermes.js`; the
 * package beside it says which version, and whether it is built (bin/hermes.js refuses to start
 * without `dist/`).
 */
export type ProjectHermes =
  | { kind: 'package'; version: string }
  | { kind: 'unbuilt'; root: string }
  | { kind: 'other'; path: string };

export function projectHermes(bin: string): ProjectHermes {
  let real: string;
  try {
    real = realpathSync(bin);
  } catch {
    return { kind: 'other', path: bin };
  }
  const root = dirname(dirname(real));
  if (relative(root, real) !== join('bin', 'hermes.js')) return { kind: 'other', path: bin };
  let manifest: { name?: unknown; version?: unknown };
  try {
    manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  } catch {
    return { kind: 'other', path: bin };
  }
  if (manifest.name !== 'hermes-extensions' || typeof manifest.version !== 'string')
    return { kind: 'other', path: bin };
  // `cli.bundle.js`: what an older build named the bundle (an ES module then).
  const built = ['cli.bundle.cjs', 'cli.bundle.js', join('cli', 'main.js')].some((entry) =>
    existsSync(join(root, 'dist', entry)),
  );
  return built ? { kind: 'package', version: manifest.version } : { kind: 'unbuilt', root };
}

/** What the lines say of a program doctor did not start. */
export const NOT_STARTED = "not started: doctor runs none of a project's programs";
