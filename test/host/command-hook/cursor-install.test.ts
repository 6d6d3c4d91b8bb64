import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cursor } from '../../../src/host/command-hook/agents/cursor.js';
import { answerSchema } from '../../support/agent-answers.js';
import { tree, tsExtension } from '../../support/fixtures.js';
import { bin, built, runBin, runProcess } from '../../support/run-bin.js';

/** The bin with its own $HOME: the user-wide ~/.cursor/hooks.json is the test's. */
const hermes = (home: string, ...args: string[]) =>
  runBin(args, { HOME: home, HERMES_HOME: join(home, '.hermes'), HERMES_DAEMON: '0' });

const read = (file: string) => readFileSync(file, 'utf8');

/** A user's own hooks.json, as Cursor's docs show one (two spaces). */
const userFile = `${JSON.stringify(
  {
    version: 1,
    hooks: {
      beforeShellExecution: [{ command: './audit.sh' }],
      stop: [{ command: 'notify-me', timeout: 5 }],
    },
  },
  null,
  2,
)}\n`;

const guard = tsExtension(
  'guard',
  `hermes.on('intercept_tool_call', (e) => JSON.stringify(e.toolArgs).includes('secret') ? block('no secrets') : undefined);`,
);

describe.runIf(built)('hermes hook install / uninstall cursor', () => {
  it("adds one entry per event to ~/.cursor/hooks.json, keeping the user's, and uninstall gives the file back byte for byte", async () => {
    for (const layout of [userFile, userFile.replaceAll('  ', '\t'), userFile.trim()]) {
      const home = tree({ '.cursor/hooks.json': layout });
      const file = join(home, '.cursor/hooks.json');
      const installed = await hermes(home, 'hook', 'install', 'cursor');
      expect(installed.code, installed.stderr).toBe(0);
      expect(installed.stdout).toMatch(
        /Added the hermes hook for beforeSubmitPrompt, preToolUse, postToolUse, postToolUseFailure, stop to .*\.cursor\/hooks\.json/,
      );
      const hooks = JSON.parse(read(file)).hooks;
      expect(hooks.beforeShellExecution).toEqual([{ command: './audit.sh' }]);
      expect(hooks.stop[0]).toEqual({ command: 'notify-me', timeout: 5 });
      // The per-kind events are not installed: a shell call would be judged twice.
      expect(Object.keys(hooks).sort()).toEqual(
        [...cursor.installEvents, 'beforeShellExecution'].sort(),
      );
      const ours = hooks.preToolUse[0];
      expect(ours).toEqual({ command: expect.stringContaining('hermes-hook cursor'), timeout: 30 });
      // The layout kept: the indentation the file had.
      if (layout.includes('\t')) expect(read(file)).toContain('\n\t"version"');
      // Twice is once.
      const before = read(file);
      expect((await hermes(home, 'hook', 'install', 'cursor')).stdout).toMatch(
        /already runs the hermes hook; nothing changed/,
      );
      expect(read(file)).toBe(before);
      const removed = await hermes(home, 'hook', 'uninstall', 'cursor');
      expect(removed.stdout).toMatch(
        /Removed the hermes hook for beforeSubmitPrompt, preToolUse, postToolUse, postToolUseFailure, stop from/,
      );
      expect(read(file)).toBe(layout);
    }
  });

  it('writes version 1 into a new file, and removes the file uninstall leaves empty', async () => {
    const home = tree();
    const file = join(home, '.cursor/hooks.json');
    expect((await hermes(home, 'hook', 'install', 'cursor')).code).toBe(0);
    const written = JSON.parse(read(file));
    expect(Object.keys(written)).toEqual(['version', 'hooks']);
    expect(written.version).toBe(1);
    expect((await hermes(home, 'hook', 'uninstall', 'cursor')).code).toBe(0);
    expect(existsSync(file)).toBe(false);
  });

  it('refuses a file Cursor would not read as version 1, and leaves it as it was', async () => {
    for (const bad of ['{"version": 2, "hooks": {}}', '{"hooks": []}', '[1]', '{ not json']) {
      const home = tree({ '.cursor/hooks.json': bad });
      const run = await hermes(home, 'hook', 'install', 'cursor');
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(/hooks\.json.*(fix or move it first)/);
      expect(read(join(home, '.cursor/hooks.json'))).toBe(bad);
    }
  });

  it("the project's command names no path of this machine and fails closed, in Cursor's wire, where the project has no hermes", async () => {
    const home = tree({ '.hermes/extensions/guard.ts': guard });
    const project = join(tree(), 'project');
    mkdirSync(project);
    execFileSync('git', ['init', '-q', project]);
    const run = await hermes(home, 'hook', 'install', 'cursor', '--project', '--cwd', project);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toMatch(/node_modules\/\.bin\/hermes does not exist yet/);
    const hooks = JSON.parse(read(join(project, '.cursor/hooks.json'))).hooks;
    expect(hooks.preToolUse).toEqual([{ command: cursor.projectCommand, timeout: 30 }]);
    expect(cursor.projectCommand).not.toContain(project);

    // Cursor runs a project's hook in the project's folder, through a shell.
    const env = { HOME: home, HERMES_HOME: join(home, '.hermes'), HERMES_DAEMON: '0' };
    const event = (name: string, extra: Record<string, unknown> = {}) =>
      JSON.stringify({
        hook_event_name: name,
        conversation_id: 'c',
        generation_id: 'g',
        workspace_roots: [project],
        ...extra,
      });
    const hook = (stdin: string) =>
      runProcess('/bin/sh', ['-c', cursor.projectCommand], { env, stdin, cwd: project });
    const call = event('preToolUse', {
      tool_name: 'Shell',
      tool_input: { command: 'cat secret.txt' },
      tool_use_id: 't1',
    });
    for (const [stdin, name] of [
      [call, 'preToolUse'],
      ['not json', 'preToolUse'],
      [event('beforeSubmitPrompt', { prompt: 'hi' }), 'beforeSubmitPrompt'],
      [event('stop', { status: 'completed' }), 'stop'],
      [event('postToolUse', { tool_name: 'Shell', tool_input: {} }), 'postToolUse'],
    ] as const) {
      const answer = await hook(stdin);
      expect(answer.code).toBe(0);
      const parsed = JSON.parse(answer.stdout);
      expect(answerSchema('cursor', name).safeParse(parsed).error?.issues, answer.stdout).toBe(
        undefined,
      );
      if (name === 'preToolUse') {
        expect(parsed.permission).toBe('deny');
        expect(parsed.agent_message).toMatch(
          /Hermes could not check this call, so it is refused: .*node_modules\/\.bin\/hermes is missing: run npm install/,
        );
      } else if (name === 'beforeSubmitPrompt') {
        expect(parsed.continue).toBe(false);
      } else {
        expect(parsed).toEqual({});
      }
    }
    // With the project's hermes there, the same command answers: the guard refuses the call.
    mkdirSync(join(project, 'node_modules/.bin'), { recursive: true });
    symlinkSync(bin, join(project, 'node_modules/.bin/hermes'));
    const answered = JSON.parse((await hook(call)).stdout);
    expect(answered).toEqual({
      permission: 'deny',
      user_message: 'no secrets',
      agent_message: 'no secrets',
    });
  });

  it('doctor lists the Cursor hook and checks it', async () => {
    const home = tree({ '.hermes/extensions/guard.ts': guard });
    const project = tree({ '.git/HEAD': '' });
    expect((await hermes(home, 'hook', 'install', 'cursor')).code).toBe(0);
    const doctor = await hermes(home, 'extensions', 'doctor', '--cwd', project);
    expect(doctor.stdout).toMatch(
      /✓ Cursor hook \(.*\.cursor\/hooks\.json\): runs the hermes hook for beforeSubmitPrompt, preToolUse, postToolUse, postToolUseFailure, stop/,
    );
    // Only stop left: told that the calls are not checked.
    const file = join(home, '.cursor/hooks.json');
    const settings = JSON.parse(read(file));
    for (const event of ['beforeSubmitPrompt', 'preToolUse', 'postToolUse', 'postToolUseFailure'])
      delete settings.hooks[event];
    const { writeFileSync } = await import('node:fs');
    writeFileSync(file, JSON.stringify(settings));
    const partial = await hermes(home, 'extensions', 'doctor', '--cwd', project);
    expect(partial.stdout).toMatch(
      /Cursor hook \(.*\): not registered for beforeSubmitPrompt, preToolUse/,
    );
    expect(partial.stdout).toContain('fix: hermes hook install cursor');
  });
});
