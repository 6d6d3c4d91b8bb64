import {
  appendFileSync,
  cpSync,
  existsSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { tree } from '../support/fixtures.js';
import { built, root, runProcess, WORKFLOW_GUARD } from '../support/run-bin.js';

/**
 * The command line compiled from V8's code cache of its bundle (bin/hermes.js `cached`,
 * loader/code-cache.cjs, docs/command-hooks.md "Code caches"): made beside the bundle by the
 * command that had none, as it ends, used by the next, made again when it is of another bundle
 * or V8 refuses it, and never read or made under V8 flags. Each test runs a copy of the package
 * (its packages linked), whose `dist/` no other test writes to.
 */
beforeAll(() => {
  expect(built).toBe(true);
});

const notCache = (path: string) => !path.endsWith('.v8cache');

function setup() {
  const copy = tree({});
  for (const part of ['bin', 'loader', 'dist', 'extensions', 'package.json'])
    cpSync(join(root, part), join(copy, part), { recursive: true, filter: notCache });
  symlinkSync(join(root, 'node_modules'), join(copy, 'node_modules'));
  const home = tree({ 'config.yaml': WORKFLOW_GUARD });
  const project = tree({ '.git/HEAD': '' });
  const bundle = join(copy, 'dist', 'cli.bundle.cjs');
  const cache = join(copy, 'dist', `cli.${process.version}-${process.arch}.v8cache`);
  /** `hermes extensions list --json` of the copy: the guard the home's config names, found. */
  const list = async (nodeFlags: string[] = []) => {
    const run = await runProcess(
      process.execPath,
      [...nodeFlags, join(copy, 'bin', 'hermes.js'), 'extensions', 'list', '--json'],
      { env: { HERMES_HOME: home, HOME: home, NODE_OPTIONS: undefined }, cwd: project },
    );
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const listed = JSON.parse(run.stdout) as { name: string; status: string; loadMs?: number }[];
    expect(listed).toContainEqual(
      expect.objectContaining({ name: 'workflow-guard', status: 'enabled' }),
    );
    // What it found, but how long the load took.
    return listed.map(({ loadMs: _, ...extension }) => extension);
  };
  /** What the cache's first line must say: the bundle it was made from. */
  const madeFrom = () => {
    const stats = statSync(bundle);
    return `${stats.size}:${stats.mtimeMs}:${stats.ino}`;
  };
  const header = () => readFileSync(cache, 'latin1').split('\n', 1)[0];
  return { bundle, cache, list, madeFrom, header };
}

describe.runIf(built)("the command line's code cache", () => {
  it('is made by the first command, and the next is compiled from it and says the same', async () => {
    const s = setup();
    expect(existsSync(s.cache)).toBe(false);
    const first = await s.list();
    expect(s.header()).toBe(s.madeFrom());
    const made = statSync(s.cache);
    expect(await s.list()).toEqual(first);
    // Made again only when V8 refuses it or it is of another bundle: untouched, it was used.
    expect(statSync(s.cache).ino).toBe(made.ino);
    expect(statSync(s.cache).mtimeMs).toBe(made.mtimeMs);
  });

  it('is made again for a bundle that changed (another build), which runs as itself', async () => {
    const s = setup();
    await s.list();
    const before = s.header();
    appendFileSync(s.bundle, '\n// another build\n');
    await s.list();
    expect(s.header()).toBe(s.madeFrom());
    expect(s.header()).not.toBe(before);
  });

  it('is made again when V8 refuses it (bytes that are no cache, under the right first line)', async () => {
    const s = setup();
    const junk = `${s.madeFrom()}\nnot a code cache at all`;
    writeFileSync(s.cache, junk);
    await s.list();
    expect(readFileSync(s.cache, 'latin1')).not.toBe(junk);
    expect(s.header()).toBe(s.madeFrom());
  });

  it('is neither read nor made under flags given to Node (the cache was not made with them)', async () => {
    const s = setup();
    await s.list(['--stack-size=900']);
    expect(existsSync(s.cache)).toBe(false);
  });
});
