import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Answer, root, runProcess } from './run-bin.js';

/**
 * hermes-extensions as a user gets it: packed with `npm pack` (what package.json `files` ships)
 * and installed from that tarball into a fresh project with npm. For tests that need the installed
 * package, not this repository: what is missing from the tarball, or what an install runs or
 * prints, shows only there.
 */

/** npm's own variables from an `npm test` that runs this: they would describe this repository. */
const NPM_RUN_VARIABLES = /^npm_(package_|lifecycle_|config_local_prefix$)/i;

/** npm run as a child process in `cwd`, with what `npm test` set for this repository left out. */
export function npm(cwd: string, args: string[]): Promise<Answer> {
  const env: Record<string, string | undefined> = {};
  for (const key of Object.keys(process.env)) {
    if (NPM_RUN_VARIABLES.test(key)) env[key] = undefined;
  }
  return runProcess('npm', args, { cwd, env, timeout: 600_000 });
}

/** An empty temp folder (real path), removed with `removeFolder`. */
export function tempFolder(prefix: string): string {
  return realpathSync(mkdtempSync(join(tmpdir(), prefix)));
}

export function removeFolder(folder: string | undefined): void {
  if (folder !== undefined) rmSync(folder, { recursive: true, force: true });
}

/**
 * Packs the package as it is built now (`dist/` must be built first) into `into`, and returns the
 * tarball's path. Scripts are skipped: `prepack` would build `dist/` again under the tests that
 * run it at the same time, and the tarball of a fresh build is what `npm pack` makes anyway.
 */
export async function packPackage(into: string): Promise<string> {
  const packed = await npm(root, ['pack', '--ignore-scripts', '--pack-destination', into]);
  if (packed.code !== 0) throw new Error(`npm pack failed (${packed.code}): ${packed.stderr}`);
  const tarball = readdirSync(into).find((name) => name.endsWith('.tgz'));
  if (tarball === undefined) throw new Error(`npm pack wrote no tarball into ${into}`);
  return join(into, tarball);
}

/** A new project in `folder` (made if missing), as `npm init` and `git init` leave it (an ES module package). */
export async function newProject(folder: string, name = 'my-agent'): Promise<string> {
  mkdirSync(folder, { recursive: true });
  writeFileSync(
    join(folder, 'package.json'),
    `${JSON.stringify({ name, version: '1.0.0', private: true, type: 'module' }, null, 2)}\n`,
  );
  const git = await runProcess('git', ['init', '-q'], { cwd: folder });
  if (git.code !== 0) throw new Error(`git init failed: ${git.stderr}`);
  return folder;
}

/**
 * `npm install <tarball> ...packages` in `project`, as a user installs: from the registry (or
 * npm's cache, `--prefer-offline`), with npm's info log, which names every script npm runs.
 */
export function installTarball(
  project: string,
  tarball: string,
  packages: readonly string[] = [],
): Promise<Answer> {
  return npm(project, [
    'install',
    tarball,
    ...packages,
    '--prefer-offline',
    '--no-audit',
    '--no-fund',
    '--loglevel=info',
  ]);
}

/** `name@version` of an optional peer dependency: the version hermes-extensions pins, and accepts. */
export function asPeerDependency(name: string): string {
  const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
    peerDependencies?: Record<string, string>;
  };
  const version = manifest.peerDependencies?.[name];
  if (version === undefined)
    throw new Error(`${name} is not a peer dependency of hermes-extensions`);
  return `${name}@${version}`;
}

/** `name@range` of a devDependency of this repository: the user installs the version it is tested with. */
export function asDevDependency(name: string): string {
  const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
    devDependencies?: Record<string, string>;
  };
  const range = manifest.devDependencies?.[name];
  if (range === undefined) throw new Error(`${name} is not a devDependency of hermes-extensions`);
  return `${name}@${range}`;
}
