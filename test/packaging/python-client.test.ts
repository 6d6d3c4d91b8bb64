import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, symlinkSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tree, tsExtension } from '../support/fixtures.js';
import { packPackage, removeFolder, tempFolder } from '../support/packed-package.js';
import { bin, built, root, runProcess } from '../support/run-bin.js';

/**
 * The Python client as a Python user installs it: `pip install` from the package's
 * `clients/python/` (taken from the packed tarball, so what `files` ships is what is installed)
 * into a fresh virtual environment, then imported and used from there.
 */

/**
 * Why pip cannot run here, or undefined when it can: a virtual environment gets its pip from
 * ensurepip, which Debian ships apart (python3-venv), as it does pip (python3-pip).
 */
function pipMissing(): string | undefined {
  const venv = spawnSync('python3', ['-c', 'import ensurepip, venv'], { encoding: 'utf8' });
  if (venv.error !== undefined) return 'python3 is not installed';
  if (venv.status !== 0) {
    return 'python3 cannot make a virtual environment with pip (Debian, Ubuntu: apt-get install python3-venv)';
  }
  const pip = spawnSync('python3', ['-m', 'pip', '--version'], { encoding: 'utf8' });
  if (pip.status !== 0) return 'python3 has no pip (Debian, Ubuntu: apt-get install python3-pip)';
  return undefined;
}

const missing = pipMissing();
// In CI, where .ci/run installs them, a missing pip fails rather than skips.
if (missing !== undefined && !process.env.CI) {
  console.warn(`test/packaging/python-client.test.ts: skipped, ${missing}`);
}

const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  version: string;
  files: string[];
};
const pyproject = readFileSync(join(root, 'clients/python/pyproject.toml'), 'utf8');

describe('the Python client as a package', () => {
  it("is versioned with the npm package and shipped in it (package.json's files)", () => {
    expect(pyproject).toMatch(
      new RegExp(`^version = "${manifest.version.replace(/\./g, '\\.')}"$`, 'm'),
    );
    expect(pyproject).toMatch(/^name = "hermes-extensions-client"$/m);
    expect(manifest.files).toContain('clients');
  });
});

describe.runIf(built && (missing === undefined || process.env.CI))(
  'pip install of the Python client from the packed package',
  () => {
    let folder: string | undefined;
    let python: string;
    let installed: { code: number; stdout: string; stderr: string };
    /** What the tarball's clients/python/ holds, before pip ran there. */
    let shipped: string[];

    beforeAll(async () => {
      expect(missing, missing).toBeUndefined();
      folder = tempFolder('hermes-pip-');
      const tarball = await packPackage(folder);
      const unpacked = await runProcess('tar', ['-xzf', tarball, '-C', folder]);
      expect(unpacked.code, unpacked.stderr).toBe(0);
      shipped = readdirSync(join(folder, 'package/clients/python')).sort();
      const venv = join(folder, 'venv');
      const made = await runProcess('python3', ['-m', 'venv', venv]);
      expect(made.code, made.stderr).toBe(0);
      python = join(venv, 'bin/python');
      // pip fetches the build backend (hatchling) from the index; one retry, not five with
      // backoff, where the index cannot be reached and a local one answers.
      installed = await runProcess(
        python,
        [
          '-m',
          'pip',
          'install',
          '--disable-pip-version-check',
          join(folder, 'package/clients/python'),
        ],
        { env: { PIP_RETRIES: process.env.PIP_RETRIES ?? '1' }, timeout: 300_000 },
      );
    }, 300_000);

    afterAll(() => removeFolder(folder));

    it('ships the module and its pyproject.toml, and no bytecode a local run left', () => {
      expect(shipped).toEqual(['hermes_extensions_client.py', 'pyproject.toml']);
    });

    it('installs into a virtual environment and imports from there', async () => {
      expect(installed.code, installed.stderr).toBe(0);
      const imported = await runProcess(
        python,
        ['-c', 'import hermes_extensions_client as c; print(c.__file__)'],
        { cwd: tree() },
      );
      expect(imported.code, imported.stderr).toBe(0);
      // The installed copy, in the environment's site-packages, not the folder it came from.
      expect(imported.stdout.trim().startsWith(`${join(folder as string, 'venv')}/`)).toBe(true);
    });

    it("calls through the bridge of the project's own install (node_modules/.bin) when the host names it, with no hermes on the PATH", async () => {
      expect(installed.code, installed.stderr).toBe(0);
      const home = tree({
        'extensions/guard.ts': tsExtension(
          'guard',
          `hermes.on('intercept_tool_call', (e) => String(e.toolArgs.path).startsWith('src/') ? block('not under src/') : pass());`,
        ),
      });
      // A project that installed hermes-extensions with npm: its bin is linked there.
      const project = tree({ '.git/HEAD': '' });
      mkdirSync(join(project, 'node_modules/.bin'), { recursive: true });
      symlinkSync(bin, join(project, 'node_modules/.bin/hermes-extensions'));
      // The client never picks a working folder's install by itself (a clone's would run): the
      // host names the one it trusts.
      const script = [
        'import json, os, sys',
        'from hermes_extensions_client import HermesExtensions',
        'command = [os.path.join(sys.argv[1], "node_modules/.bin/hermes-extensions"), "extensions", "serve", "--stdio"]',
        'with HermesExtensions(command=command, cwd=sys.argv[1]) as hooks, hooks.turn(session_id="py") as turn:',
        '    print(json.dumps(turn.intercept_tool_call("write", {"path": "src/a.py"})))',
      ].join('\n');
      const run = await runProcess(python, ['-c', script, project], {
        cwd: tree(),
        env: {
          HERMES_HOME: home,
          HERMES_TRUST_PROJECT: undefined,
          // node for the bin's `#!/usr/bin/env node`, and nothing named hermes.
          PATH: [dirname(process.execPath), '/usr/bin', '/bin'].join(delimiter),
        },
      });
      expect(run.code, run.stderr).toBe(0);
      const outcome = JSON.parse(run.stdout) as {
        blocked: boolean;
        message: string;
        blocked_by: string;
      };
      expect(outcome).toMatchObject({
        blocked: true,
        blocked_by: 'guard',
        message: 'not under src/',
      });
    });
  },
);
