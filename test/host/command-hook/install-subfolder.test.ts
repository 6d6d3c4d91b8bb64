import { existsSync, mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { claudeCode, codex } from '../../../src/host/command-hook/agents.js';
import { tree } from '../../support/fixtures.js';
import { bin, built, runProcess } from '../../support/run-bin.js';

/** The bin run in `cwd`, as a user types it there, with its own $HOME. */
const hermesIn = (cwd: string, home: string, ...args: string[]) =>
  runProcess(process.execPath, [bin, ...args], {
    cwd,
    env: { HOME: home, HERMES_HOME: join(home, '.hermes'), CODEX_HOME: '' },
  });

/** A git repository with hermes-extensions installed, and a folder deep inside it. */
function projectWithPackage(): { project: string; deep: string } {
  const project = tree({ '.git/HEAD': '', 'src/deep/.keep': '', 'package.json': '{}' });
  mkdirSync(join(project, 'node_modules/.bin'), { recursive: true });
  symlinkSync(bin, join(project, 'node_modules/.bin/hermes'));
  return { project, deep: join(project, 'src/deep') };
}

// The agents read a project's hooks from its root only (Claude Code's .claude/ where the
// session starts, Codex's .codex/ at the git root): a settings file in a subfolder does nothing.
describe.runIf(built)('hermes hook install --project in a subfolder of the project', () => {
  for (const agent of [claudeCode, codex]) {
    it(`${agent.title}: writes the project root's settings, finds the installed package, and uninstall finds them too`, async () => {
      const home = tree();
      const { project, deep } = projectWithPackage();
      const install = await hermesIn(deep, home, 'hook', 'install', agent.name, '--project');
      expect(install.code).toBe(0);
      const file = agent.settingsFile(project);
      expect(install.stdout).toMatch(/Added the hermes hook for .*PreToolUse/);
      expect(install.stdout).toContain(` to ${file}.`);
      expect(readFileSync(file, 'utf8')).toContain('hook');
      expect(existsSync(join(deep, agent === claudeCode ? '.claude' : '.codex'))).toBe(false);
      // The package is installed at the root, where the hook runs it from.
      expect(install.stderr).not.toContain('does not exist yet');
      expect(install.stderr).toBe('');

      const uninstall = await hermesIn(deep, home, 'hook', 'uninstall', agent.name, '--project');
      expect(uninstall.code).toBe(0);
      expect(uninstall.stdout).toMatch(/Removed the hermes hook for .*PreToolUse/);
      expect(existsSync(file)).toBe(false);
    });
  }

  it('Codex: the git root, even below a folder that holds its own .hermes', async () => {
    const home = tree();
    const { project } = projectWithPackage();
    const service = join(project, 'services/api');
    mkdirSync(join(service, '.hermes'), { recursive: true });
    const install = await hermesIn(service, home, 'hook', 'install', 'codex', '--project');
    expect(install.code).toBe(0);
    expect(existsSync(codex.settingsFile(project))).toBe(true);
    expect(existsSync(join(service, '.codex'))).toBe(false);
    expect(install.stderr).toBe('');
  });
});
