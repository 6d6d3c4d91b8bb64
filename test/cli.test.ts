import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const bin = fileURLToPath(new URL('../bin/hermes.js', import.meta.url));
const built = existsSync(fileURLToPath(new URL('../dist/cli/main.js', import.meta.url)));
const run = (...args: string[]) =>
  promisify(execFile)(process.execPath, [bin, ...args]).then(
    (r) => ({ code: 0, ...r }),
    (e: { code: number; stdout: string; stderr: string }) => e,
  );

// The bin runs the build that `npm install` makes; without one there is nothing to run.
describe.runIf(built)('hermes bin', () => {
  it('prints usage with --help and exits 0', async () => {
    const { code, stdout } = await run('--help');
    expect(code).toBe(0);
    expect(stdout).toMatch(/^Usage: hermes/);
  });

  it('prints the package version', async () => {
    const { stdout } = await run('--version');
    expect(stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
  });

  it('exits 2 with a message on an unknown command', async () => {
    const { code, stderr } = await run('frobnicate');
    expect(code).toBe(2);
    expect(stderr).toMatch(/"frobnicate" is not a command/);
  });
});
