import { execFile } from 'node:child_process';
import { chmodSync, copyFileSync, symlinkSync } from 'node:fs';
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
    const elsewhere = tree();
    copyFileSync(
      join(client, 'hermes_extensions_client.py'),
      join(elsewhere, 'hermes_extensions_client.py'),
    );
    const bins = tree();
    symlinkSync(bin, join(bins, 'hermes-extensions'));
    const run = await runClient(elsewhere, `${bins}${delimiter}${nodeFirst}`);
    expect(run.command).toEqual(['hermes-extensions', 'extensions', 'serve', '--stdio']);
    expect(run.extensions).toEqual(['guard']);
  });
});
