import {
  copyFileSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { tree } from './fixtures.js';
import { linkDependencies, shippedFiles } from './installed-copy.js';
import { root } from './run-bin.js';

/** A project with hermes-extensions installed as npm lays it out, some packages left out. */
export interface ProjectInstall {
  /** The project's folder (a git repository, with a package.json). */
  project: string;
  /** node_modules/hermes-extensions: the files `npm pack` ships, the build in dist/ included. */
  packageDir: string;
  /** node_modules/hermes-extensions/bin/hermes.js, which node_modules/.bin/hermes links to. */
  binFile: string;
  /** The project's node_modules, where npm puts a package installed beside hermes-extensions. */
  modules: string;
}

/**
 * A temp project where hermes-extensions is installed as `npm i -D hermes-extensions` leaves it:
 * the shipped files in node_modules/hermes-extensions (run `npm run build` first) and its
 * dependencies beside it, each a link to this repository's copy, except the packages `without`
 * names (an optional peer a default install leaves out). `installBeside` then installs one as
 * `npm i -D <name>` would: beside hermes-extensions, where it resolves from.
 */
export function projectInstallWithout(without: readonly string[]): ProjectInstall {
  const project = tree({
    '.git/HEAD': 'ref: refs/heads/main\n',
    'package.json': `${JSON.stringify({ name: 'my-agent', private: true, type: 'module' }, null, 2)}\n`,
  });
  const modules = join(project, 'node_modules');
  const packageDir = join(modules, 'hermes-extensions');
  for (const file of shippedFiles()) {
    mkdirSync(dirname(join(packageDir, file)), { recursive: true });
    copyFileSync(join(root, file), join(packageDir, file));
  }
  linkDependencies(modules, without);
  const binFile = join(packageDir, 'bin', 'hermes.js');
  mkdirSync(join(modules, '.bin'));
  symlinkSync(binFile, join(modules, '.bin', 'hermes'));
  return { project, packageDir, binFile, modules };
}

/** `name` installed beside hermes-extensions in `install`: this repository's copy of it. */
export function installBeside(install: ProjectInstall, name: string): void {
  mkdirSync(dirname(join(install.modules, name)), { recursive: true });
  symlinkSync(join(root, 'node_modules', name), join(install.modules, name));
}

/**
 * `name` installed beside hermes-extensions at another `version`: this repository's copy of its
 * files, each a link, and a package.json that says `version`, as another release would.
 */
export function installOtherVersion(install: ProjectInstall, name: string, version: string): void {
  const real = join(root, 'node_modules', name);
  const fake = join(install.modules, name);
  mkdirSync(fake, { recursive: true });
  for (const entry of readdirSync(real)) {
    if (entry !== 'package.json') symlinkSync(join(real, entry), join(fake, entry));
  }
  const manifest = JSON.parse(readFileSync(join(real, 'package.json'), 'utf8')) as object;
  writeFileSync(join(fake, 'package.json'), JSON.stringify({ ...manifest, version }, null, 2));
}
