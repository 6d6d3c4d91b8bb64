import { execFile } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { tree, tsExtension } from '../../support/fixtures.js';
import { bin, built, root } from '../../support/run-bin.js';

const client = join(root, 'clients/python');

/**
 * The Python client imported from `folder`, with no `command`: prints the command it chose and
 * the extensions the bridge it started reports.
 */
const script = `
import json, sys
sys.path.insert(0, sys.argv[1])
from hermes_extensions_client import HermesExtensions, default_command
with HermesExtensions(cwd=sys.argv[2]) as hooks:
    print(json.dumps({"command": list(default_command()), "extensions": [e["name"] for e in hooks.info["extensions"]]}))
`;

async function runClient(folder: string, path: string) {
  const home = tree({ 'extensions/guard.ts': tsExtension('guard') });
  const { stdout } = await promisify(execFile)('python3', ['-c', script, folder, tree()], {
    env: { ...process.env, HERMES_HOME: home, PATH: path },
  });
  return JSON.parse(stdout) as { command: string[]; extensions: string[] };
}

/** The client copied out of the package, as pip installs it into site-packages. */
function copiedClient(): string {
  const elsewhere = tree();
  copyFileSync(
    join(client, 'hermes_extensions_client.py'),
    join(elsewhere, 'hermes_extensions_client.py'),
  );
  return elsewhere;
}

/**
 * A cloned repository with a `node_modules/.bin/hermes-extensions` of its own, which leaves a
 * marker when it runs; the Python host is started in a folder below its root.
 */
function cloneWithBin(): { clone: string; below: string; marker: string } {
  const clone = tree({ '.git/HEAD': '', 'src/app/.keep': '' });
  const marker = join(clone, 'ran');
  const fake = join(clone, 'node_modules/.bin/hermes-extensions');
  mkdirSync(dirname(fake), { recursive: true });
  writeFileSync(fake, `#!/bin/sh\necho ran > '${marker}'\n`);
  chmodSync(fake, 0o755);
  return { clone, below: join(clone, 'src/app'), marker };
}

describe.runIf(built)('the Python client finds its bridge', () => {
  const nodeFirst = `${dirname(process.execPath)}${delimiter}${process.env.PATH}`;

  it("runs the package's own bin when it sits in the package, whatever `hermes` is on the PATH", async () => {
    // A `hermes` first on the PATH that is not this package (the Python agent's, say).
    const other = tree({ hermes: '#!/bin/sh\nexit 3\n' });
    chmodSync(join(other, 'hermes'), 0o755);
    const run = await runClient(client, `${other}${delimiter}${nodeFirst}`);
    expect(run.command.slice(1)).toEqual([bin, 'extensions', 'serve', '--stdio']);
    expect(run.extensions).toEqual(['guard']);
  });

  it('runs `hermes-extensions` from the PATH when it is copied elsewhere', async () => {
    const bins = tree();
    symlinkSync(bin, join(bins, 'hermes-extensions'));
    const run = await runClient(copiedClient(), `${bins}${delimiter}${nodeFirst}`);
    expect(run.command).toEqual([
      join(bins, 'hermes-extensions'),
      'extensions',
      'serve',
      '--stdio',
    ]);
    expect(run.extensions).toEqual(['guard']);
  });

  it("never runs the working folder's node_modules/.bin/hermes-extensions (a cloned repository's)", async () => {
    const { clone, below, marker } = cloneWithBin();
    const bins = tree();
    symlinkSync(bin, join(bins, 'hermes-extensions'));
    const home = tree({ 'extensions/guard.ts': tsExtension('guard') });
    // Started in the clone, no `cwd=`; `node_modules/.bin` even on the PATH, as a relative folder.
    const host = `
import json, sys
sys.path.insert(0, sys.argv[1])
from hermes_extensions_client import HermesExtensions
with HermesExtensions() as hooks:
    print(json.dumps([e["name"] for e in hooks.info["extensions"]]))
`;
    for (const cwd of [clone, below]) {
      const run = await promisify(execFile)('python3', ['-c', host, copiedClient()], {
        cwd,
        env: {
          ...process.env,
          HERMES_HOME: home,
          PATH: ['node_modules/.bin', bins, nodeFirst].join(delimiter),
        },
      });
      expect(existsSync(marker), run.stderr).toBe(false);
      expect(JSON.parse(run.stdout)).toEqual(['guard']);
    }
  });

  it('says how to proceed when no hermes-extensions is on the PATH, running none of the folder', async () => {
    const { below, marker } = cloneWithBin();
    const host = `
import sys
sys.path.insert(0, sys.argv[1])
from hermes_extensions_client import HermesExtensions
try:
    HermesExtensions()
except FileNotFoundError as error:
    print(error)
`;
    const run = await promisify(execFile)('python3', ['-c', host, copiedClient()], {
      cwd: below,
      env: { ...process.env, PATH: ['node_modules/.bin', nodeFirst].join(delimiter) },
    });
    expect(existsSync(marker)).toBe(false);
    expect(run.stdout).toMatch(
      /hermes-extensions is not on the PATH .*: install it .*, or give the client command=/,
    );
  });
});
