import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { tree } from './fixtures.js';
import { root } from './run-bin.js';

/** A project with this package installed as npm would lay it out, from the files it ships. */
export interface InstalledCopy {
  /** The project's folder (a git repository, with a package.json). */
  project: string;
  /** node_modules/hermes-extensions: only the files `npm pack` would put in the tarball. */
  packageDir: string;
  /** node_modules/.bin/hermes, the link npm makes to the package's bin. */
  bin: string;
}

let shipped: string[] | undefined;

/** The package's files as `npm pack` lists them (package.json `files`), without building. */
export function shippedFiles(): string[] {
  shipped ??= (
    JSON.parse(
      execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
        cwd: root,
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'ignore'],
      }),
    ) as Array<{ files: Array<{ path: string }> }>
  )[0]?.files.map((file) => file.path) as string[];
  return shipped;
}

/**
 * A temp project whose node_modules/hermes-extensions holds exactly the shipped files, copied
 * (the build in dist/ included: run `npm run build` first), its dependencies this repository's
 * own, and node_modules/.bin/hermes linked to its bin, as `npm install` leaves them. Removed
 * after the test, as `tree()` folders are. With `global`, laid out as `npm install --global`
 * does instead: `<prefix>/lib/node_modules/hermes-extensions` and `<prefix>/bin/hermes` (no
 * package.json above that node_modules); `project` is then the prefix. With `without`, the
 * dependencies are linked one by one beside it, but those it names (an optional peer a default
 * install leaves out), as install-without.ts does.
 */
export function installedCopy(
  options: { global?: boolean; without?: readonly string[] } = {},
): InstalledCopy {
  const project = tree();
  const modules = options.global
    ? join(project, 'lib', 'node_modules')
    : join(project, 'node_modules');
  if (!options.global) {
    mkdirSync(join(project, '.git'));
    writeFileSync(
      join(project, 'package.json'),
      `${JSON.stringify({ name: 'user-project', private: true, type: 'module' }, null, 2)}\n`,
    );
  }
  const packageDir = join(modules, 'hermes-extensions');
  for (const file of shippedFiles()) {
    mkdirSync(dirname(join(packageDir, file)), { recursive: true });
    copyFileSync(join(root, file), join(packageDir, file));
  }
  // The dependencies npm would install beside it: this repository's, which has them all.
  if (options.without === undefined) {
    symlinkSync(join(root, 'node_modules'), join(packageDir, 'node_modules'), 'dir');
  } else {
    linkDependencies(modules, options.without);
  }
  const binDir = options.global ? join(project, 'bin') : join(modules, '.bin');
  mkdirSync(binDir);
  const bin = join(binDir, 'hermes');
  symlinkSync(join(packageDir, 'bin', 'hermes.js'), bin);
  return { project, packageDir, bin };
}

/**
 * Into `modules` (a project's node_modules), a link to each package of this repository's
 * node_modules, as npm installs a package's dependencies beside it, but those `without` names
 * (`rolldown`, `@anthropic-ai/sandbox-runtime`).
 */
export function linkDependencies(modules: string, without: readonly string[]): void {
  mkdirSync(modules, { recursive: true });
  const left = new Set(without);
  for (const name of readdirSync(join(root, 'node_modules'))) {
    if (name.startsWith('.') || left.has(name)) continue;
    if (!name.startsWith('@')) {
      symlinkSync(join(root, 'node_modules', name), join(modules, name));
      continue;
    }
    mkdirSync(join(modules, name));
    for (const scoped of readdirSync(join(root, 'node_modules', name))) {
      if (left.has(`${name}/${scoped}`)) continue;
      symlinkSync(join(root, 'node_modules', name, scoped), join(modules, name, scoped));
    }
  }
}
