import { chmodSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { claudeCode } from '../../src/host/command-hook/agents.js';
import { wrappedHookCommand } from '../../src/host/command-hook/hook-wrapper.js';
import { tree, write } from '../support/fixtures.js';
import { built } from '../support/run-bin.js';
import { hermes } from './hermes-cli.js';

/**
 * doctor never runs a program the project ships: a cloned repository commits the project form of
 * the hook and a `node_modules/.bin/hermes` of its own (or a `.claude/settings.local.json` that
 * names one), and doctor, run before anything is trusted, must not start it. It says what the
 * project form would run, from the files alone, and that it did not start it.
 */

/** An executable that leaves `marker` when it runs, and answers as a hermes would. */
function trap(file: string, marker: string): void {
  const slash = file.lastIndexOf('/');
  write(file.slice(0, slash), {
    [file.slice(slash + 1)]: `#!/bin/sh\necho ran > '${marker}'\necho 0.1.0\n`,
  });
  chmodSync(file, 0o755);
}

const EVENTS = claudeCode.installEvents;

const settings = (command: string) =>
  JSON.stringify({
    hooks: Object.fromEntries(
      EVENTS.map((event) => [event, [{ hooks: [{ type: 'command', command }] }]]),
    ),
  });

describe.runIf(built)('hermes extensions doctor and the programs a project ships', () => {
  it("does not start a cloned repository's node_modules/.bin/hermes", async () => {
    const home = tree();
    const project = tree({ '.git/HEAD': '' });
    const marker = join(project, 'ran');
    write(project, { '.claude/settings.json': settings(claudeCode.projectCommand) });
    trap(join(project, 'node_modules/.bin/hermes'), marker);
    const doctor = await hermes(home, 'extensions', 'doctor', '--cwd', project);
    expect(existsSync(marker), doctor.stdout).toBe(false);
    expect(doctor.stdout).toContain(
      `runs ${join(project, 'node_modules/.bin/hermes')}, which is not the bin of a hermes-extensions package`,
    );
    expect(doctor.stdout).toMatch(/not started: doctor runs none of a project's programs/);
  });

  it('says which hermes-extensions the project form runs, by its package.json, without running it', async () => {
    const home = tree();
    const project = tree({ '.git/HEAD': '' });
    const marker = join(project, 'ran');
    write(project, {
      '.claude/settings.json': settings(claudeCode.projectCommand),
      'node_modules/hermes-extensions/package.json': JSON.stringify({
        name: 'hermes-extensions',
        version: '9.9.9',
      }),
      'node_modules/hermes-extensions/dist/cli/main.js': '',
    });
    trap(join(project, 'node_modules/hermes-extensions/bin/hermes.js'), marker);
    const { symlinkSync, mkdirSync } = await import('node:fs');
    mkdirSync(join(project, 'node_modules/.bin'));
    symlinkSync('../hermes-extensions/bin/hermes.js', join(project, 'node_modules/.bin/hermes'));
    const doctor = await hermes(home, 'extensions', 'doctor', '--cwd', project);
    expect(existsSync(marker), doctor.stdout).toBe(false);
    expect(doctor.stdout).toMatch(
      /Claude Code hook \(.*\): runs the hermes hook for .*: the project's hermes-extensions 9\.9\.9 \(by its package\.json; not started: doctor runs none of a project's programs\)/,
    );
    // Only the project's hook: the project controls it, and the user's own is missing.
    expect(doctor.stdout).toMatch(
      /! Claude Code hook: only the project's hook is installed .*: a cloned repository controls that command/,
    );
    expect(doctor.stdout).toContain('fix: hermes hook install claude-code');
  });

  it("does not start a user-form command found in the project's folder", async () => {
    const home = tree();
    const project = tree({ '.git/HEAD': '' });
    const marker = join(project, 'ran');
    const program = join(project, 'tools/hermes');
    trap(program, marker);
    write(project, {
      '.claude/settings.local.json': settings(
        wrappedHookCommand('claude-code', [program, 'hook', 'claude-code']),
      ),
    });
    const doctor = await hermes(home, 'extensions', 'doctor', '--cwd', project);
    expect(existsSync(marker), doctor.stdout).toBe(false);
    expect(doctor.stdout).toMatch(/not started: doctor runs none of a project's programs/);
  });
});
