import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tree } from '../support/fixtures.js';
import { bin, built, runProcess } from '../support/run-bin.js';

/**
 * The real bin in a child process that reports itself on Windows: the hook command install
 * writes is a POSIX `sh` line, which PowerShell (Claude Code's shell without Git Bash) cannot run,
 * and a hook that errors there lets the call run.
 */
const onWindows = `data:text/javascript,Object.defineProperty(process,'platform',{value:'win32'})`;

function hermesOnWindows(home: string, ...args: string[]) {
  return runProcess(process.execPath, ['--import', onWindows, bin, ...args], {
    env: {
      HERMES_HOME: join(home, '.hermes'),
      HOME: home,
      CODEX_HOME: '',
      HERMES_TRUST_PROJECT: '',
    },
  });
}

/** Every file and folder under `root`, relative. */
function everything(root: string): string[] {
  return readdirSync(root, { recursive: true, encoding: 'utf8' }).sort();
}

const INSTALLS: string[][] = [
  ['claude-code'],
  ['claude-code', '--project'],
  ['claude-code', '--local'],
  ['codex'],
  ['codex', '--project'],
  ['cursor'],
  ['cursor', '--project'],
  ['opencode'],
  ['opencode', '--project'],
  ['hermes-agent'],
  ['hermes-agent', '--plugin'],
  ['antigravity'],
];

describe.runIf(built)('hermes hook install on Windows', () => {
  it.each(INSTALLS.map((args) => [args.join(' '), args]))(
    'hook install %s refuses, saying where the guarantee holds, and writes nothing',
    async (_name, args) => {
      const home = tree({ 'project/package.json': '{}' });
      const before = everything(home);
      const answer = await hermesOnWindows(
        home,
        'hook',
        'install',
        ...(args as string[]),
        '--cwd',
        join(home, 'project'),
      );
      expect(answer.code).not.toBe(0);
      expect(answer.stderr).toMatch(/Windows/);
      expect(answer.stderr).toMatch(/Linux and macOS/);
      expect(answer.stdout).not.toMatch(/Added|Installed/);
      expect(everything(home)).toEqual(before);
    },
  );

  it('the same child on Linux does install (the preload is what makes it Windows)', async () => {
    const home = tree({ 'project/package.json': '{}' });
    const answer = await runProcess(
      process.execPath,
      [bin, 'hook', 'install', 'claude-code', '--cwd', join(home, 'project')],
      { env: { HERMES_HOME: join(home, '.hermes'), HOME: home, CODEX_HOME: '' } },
    );
    expect(answer.code).toBe(0);
    expect(everything(home)).toContain(join('.claude', 'settings.json'));
  });
});
