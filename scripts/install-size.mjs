#!/usr/bin/env node
// What a project's node_modules weighs once it installs hermes-extensions: `npm run size` packs
// the package as built now (`npm run build` runs first), installs the tarball into a fresh
// project with npm (from the registry, or npm's cache), and prints the total and the ten largest
// packages. `--with <package>` installs one of the optional peers too, at the version package.json
// pins (`--with rolldown`, `--with @anthropic-ai/sandbox-runtime`). BENCHMARKS.md (Install size)
// records what it printed; test/packaging/install-size.test.ts holds the default install to its
// limit with the same measure.
import { execFileSync } from 'node:child_process';
import {
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The limit of a default install (issue 24): 25 MB. */
export const INSTALL_SIZE_LIMIT = 25 * 1024 * 1024;

/**
 * The apparent size of everything under `nodeModules`, and of each package in it (a package's
 * nested node_modules counted as its own, since it comes with it). Each entry's size as lstat
 * gives it (files, folders and links alike, a file with several names once): what
 * `du -s --apparent-size` counts, not the blocks the disk gives them.
 */
export function measureNodeModules(nodeModules) {
  const seen = new Set();
  const packages = new Map();
  let total = 0;
  const walk = (path) => {
    const stat = lstatSync(path);
    if (stat.nlink > 1 && !stat.isDirectory()) {
      const key = `${stat.dev}:${stat.ino}`;
      if (seen.has(key)) return;
      seen.add(key);
    }
    total += stat.size;
    const name = packageOf(relative(nodeModules, path));
    if (name !== undefined) packages.set(name, (packages.get(name) ?? 0) + stat.size);
    if (stat.isDirectory()) for (const entry of readdirSync(path)) walk(join(path, entry));
  };
  walk(nodeModules);
  const largest = [...packages]
    .map(([name, bytes]) => ({ name, bytes }))
    .sort((a, b) => b.bytes - a.bytes);
  return { total, packages: largest };
}

/** The top-level package a path under node_modules belongs to: `rolldown`, `@rolldown/binding-…`. */
function packageOf(path) {
  const parts = path.split(sep);
  if (parts[0] === '' || parts[0] === '.bin' || parts[0].startsWith('.')) return undefined;
  if (parts[0].startsWith('@')) return parts.length > 1 ? `${parts[0]}/${parts[1]}` : undefined;
  return parts[0];
}

/** `12.3 MB` (MiB, as the limit is counted). */
export function megabytes(bytes) {
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/** The total and the `count` largest packages, one line each. */
export function describeSize({ total, packages }, count = 10) {
  return [
    `node_modules: ${megabytes(total)} (${total} bytes, ${packages.length} packages)`,
    ...packages
      .slice(0, count)
      .map(({ name, bytes }) => `  ${megabytes(bytes).padStart(8)}  ${name}`),
  ].join('\n');
}

function main(args) {
  const root = fileURLToPath(new URL('..', import.meta.url));
  const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  const peers = [];
  for (let i = 0; i < args.length; i++) {
    if (args[i] !== '--with' || args[i + 1] === undefined) {
      throw new Error(`unknown argument ${args[i]}: use --with <optional peer>`);
    }
    const name = args[++i];
    const version = manifest.peerDependencies?.[name];
    if (version === undefined)
      throw new Error(`${name} is not a peer dependency of hermes-extensions`);
    peers.push(`${name}@${version}`);
  }
  const folder = mkdtempSync(join(tmpdir(), 'hermes-install-size-'));
  try {
    const run = (cwd, command, commandArgs) =>
      execFileSync(command, commandArgs, {
        cwd,
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'inherit'],
      });
    // Scripts skipped: `npm run size` has just built dist/, which is what prepack would do.
    run(root, 'npm', ['pack', '--ignore-scripts', '--silent', '--pack-destination', folder]);
    const tarball = readdirSync(folder).find((name) => name.endsWith('.tgz'));
    const project = join(folder, 'project');
    mkdirSync(project);
    writeFileSync(join(project, 'package.json'), '{ "name": "my-agent", "private": true }\n');
    run(project, 'npm', [
      'install',
      join(folder, tarball),
      ...peers,
      '--no-audit',
      '--no-fund',
      '--silent',
    ]);
    console.log(`npm install hermes-extensions${peers.map((p) => ` ${p}`).join('')}`);
    console.log(describeSize(measureNodeModules(join(project, 'node_modules'))));
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === resolve(process.argv[1])) {
  main(process.argv.slice(2));
}
