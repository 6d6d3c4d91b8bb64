import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { claudeCode, codex } from '../../../src/host/command-hook/agents.js';
import { hookFile, hookFileText, hookLine } from '../../../src/host/command-hook/hook-line.js';
import { daemonFolder } from '../../../src/policy/protected/daemon-folder.js';
import { tree, tsExtension, write } from '../../support/fixtures.js';
import { bin, built, runBin, runProcess } from '../../support/run-bin.js';

/** The bin with its own $HOME (and $CODEX_HOME), so the user-wide settings are the test's. */
const hermes = (home: string, ...args: string[]) =>
  runBin(args, { HOME: home, HERMES_HOME: join(home, '.hermes'), CODEX_HOME: '' });

const read = (file: string) => readFileSync(file, 'utf8');

/** Every hook command in a settings file. */
const commands = (file: string): string[] =>
  Object.values(JSON.parse(read(file)).hooks as Record<string, { hooks: { command: string }[] }[]>)
    .flat()
    .flatMap((entry) => entry.hooks.map((hook) => hook.command));

/**
 * The user form `hook install <agent>` writes with `home`'s $HERMES_HOME: one short line per
 * event, each running the program in $HERMES_HOME/hook-commands/<agent> (hook-line.ts).
 */
function userLines(agent: typeof claudeCode | typeof codex, home: string): Set<string> {
  const text = hookFileText(agent.name, [process.execPath, bin, 'hook', agent.name], {
    HERMES_HOME: join(home, '.hermes'),
    HERMES_DAEMON_DIR: daemonFolder(),
  }) as string;
  const file = hookFile(join(home, '.hermes'), agent.name);
  expect(read(file)).toBe(text);
  return new Set(
    agent.installEvents.map((event) =>
      hookLine(file, event, text, `run hermes hook install ${agent.name}`),
    ),
  );
}

/** A user's settings with their own hooks, in the layout Claude Code writes (two spaces). */
const userSettings = `${JSON.stringify(
  {
    model: 'opus',
    hooks: {
      PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'my-check' }] }],
      Stop: [{ hooks: [{ type: 'command', command: 'notify-me', timeout: 5 }] }],
    },
    permissions: { allow: ['Bash(git status)'] },
  },
  null,
  2,
)}\n`;

const guard = tsExtension(
  'guard',
  `hermes.on('intercept_tool_call', (e) => JSON.stringify(e.toolArgs).includes('secret') ? block('no secrets') : undefined);`,
);

describe.runIf(built)('hermes hook install / uninstall', () => {
  it('uninstall takes back exactly what install added: the user’s file is byte-identical', async () => {
    for (const layout of [userSettings, userSettings.replaceAll('  ', '\t'), userSettings.trim()]) {
      const home = tree({ '.claude/settings.json': layout });
      const file = join(home, '.claude/settings.json');
      expect((await hermes(home, 'hook', 'install', 'claude-code')).code).toBe(0);
      expect(commands(file)).toContain('my-check');
      expect(read(file)).not.toBe(layout);
      const removed = await hermes(home, 'hook', 'uninstall', 'claude-code');
      expect(removed.code).toBe(0);
      expect(removed.stdout).toMatch(
        /Removed the hermes hook for SessionStart, UserPromptSubmit, PreToolUse, PostToolUse, PostToolUseFailure, PostToolBatch, SubagentStart, SubagentStop, Stop, SessionEnd from .*settings\.json/,
      );
      expect(read(file)).toBe(layout);
      // Nothing of hermes's left: a second run changes nothing.
      expect((await hermes(home, 'hook', 'uninstall', 'claude-code')).stdout).toMatch(
        /has no hermes hook; nothing changed/,
      );
      expect(read(file)).toBe(layout);
    }
  });

  it('keeps the user’s hooks that share an entry with hermes’s, and lists it left empty', async () => {
    const home = tree();
    const file = join(home, '.codex/hooks.json');
    write(home, {
      '.codex/hooks.json': JSON.stringify({
        hooks: {
          PreToolUse: [
            {
              hooks: [
                {
                  type: 'command',
                  command: '/old/node /old/hermes-extensions/bin/hermes.js hook codex',
                },
                { type: 'command', command: 'my-check' },
              ],
            },
          ],
          Stop: [],
          SessionEnd: [{ hooks: [{ type: 'command', command: 'hermes hook codex' }] }],
        },
      }),
    });
    const removed = await hermes(home, 'hook', 'uninstall', 'codex');
    expect(removed.stdout).toMatch(/Removed the hermes hook for PreToolUse, SessionEnd from/);
    // One line, as it was; the list the user had empty stays.
    expect(read(file)).toBe(
      '{"hooks":{"PreToolUse":[{"hooks":[{"type":"command","command":"my-check"}]}],"Stop":[]}}',
    );
  });

  it('removes a settings file that held nothing but the hermes hook', async () => {
    const home = tree();
    await hermes(home, 'hook', 'install', 'claude-code');
    expect(existsSync(join(home, '.claude/settings.json'))).toBe(true);
    await hermes(home, 'hook', 'uninstall', 'claude-code');
    expect(existsSync(join(home, '.claude/settings.json'))).toBe(false);
    // Nothing there: nothing to do, and no file made.
    const again = await hermes(home, 'hook', 'uninstall', 'claude-code');
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/nothing changed/);
    expect(existsSync(join(home, '.claude/settings.json'))).toBe(false);
  });

  it('leaves PostToolBatch and PostToolUseFailure out for a Claude Code that would ignore the whole file over them', async () => {
    const home = tree({});
    const fakeBin = join(home, 'bin');
    mkdirSync(fakeBin);
    const claudeAt = (version: string) => {
      write(fakeBin, { claude: `#!/bin/sh\necho "${version} (Claude Code)"\n` });
      execFileSync('chmod', ['+x', join(fakeBin, 'claude')]);
    };
    const withClaude = (...args: string[]) =>
      runBin(args, {
        HOME: home,
        HERMES_HOME: join(home, '.hermes'),
        PATH: `${fakeBin}:${process.env.PATH}`,
      });
    const settings = join(home, '.claude', 'settings.json');
    const events = () => Object.keys(JSON.parse(read(settings)).hooks);

    claudeAt('2.1.330');
    expect((await withClaude('hook', 'install', 'claude-code')).code).toBe(0);
    expect(events()).toContain('PostToolBatch');
    // Where a failed tool's error goes, and what transform_tool_result adds to it (failure-advice.ts).
    expect(events()).toContain('PostToolUseFailure');

    claudeAt('2.1.90');
    const old = await withClaude('hook', 'install', 'claude-code');
    expect(old.code).toBe(0);
    expect(old.stderr).toMatch(
      /Claude Code 2\.1\.90 would ignore every hook .* PostToolUseFailure, PostToolBatch/,
    );
    expect(events()).not.toContain('PostToolBatch');
    expect(events()).not.toContain('PostToolUseFailure');
    expect(events()).toEqual(expect.arrayContaining(['UserPromptSubmit', 'PreToolUse', 'Stop']));
  });

  it('--project writes a command without a path of this machine, and switches forms in place', async () => {
    const home = tree();
    const project = tree({ '.git/HEAD': '' });
    for (const agent of [claudeCode, codex]) {
      const file = agent.settingsFile(project);
      // A hook an earlier install wrote with this machine's paths, bare; install writes it
      // wrapped (hook-wrapper.ts).
      const bare = `"${process.execPath}" "${bin}" hook ${agent.name}`;
      write(project, {
        [file.slice(project.length + 1)]: JSON.stringify({
          hooks: { Stop: [{ hooks: [{ type: 'command', command: bare }] }] },
        }),
      });
      const install = () =>
        hermes(home, 'hook', 'install', agent.name, '--project', '--cwd', project);
      const first = await install();
      expect(first.code).toBe(0);
      expect(first.stdout).toMatch(/Updated the hermes hook's command for Stop in/);
      // The project does not have hermes-extensions installed: said, not refused.
      expect(first.stderr).toContain(
        `${join(project, 'node_modules/.bin/hermes')} does not exist yet`,
      );
      const text = read(file);
      expect(text).not.toContain(project);
      expect(text).not.toContain(process.execPath);
      expect(text).not.toContain(bin);
      expect(new Set(commands(file))).toEqual(new Set([agent.projectCommand]));
      expect(commands(file)).toHaveLength(agent.installEvents.length);
      expect((await install()).stdout).toMatch(/nothing changed/);
      expect(read(file)).toBe(text);

      // And back: the user-wide form replaces it in place, one hook per event.
      write(home, { [agent.settingsFile(home).slice(home.length + 1)]: text });
      expect((await hermes(home, 'hook', 'install', agent.name)).stdout).toMatch(
        /Updated the hermes hook's command for/,
      );
      expect(new Set(commands(agent.settingsFile(home)))).toEqual(userLines(agent, home));
    }
    // HOME is the test's, so the user-wide files are home's: uninstall from the project only.
    expect(
      (await hermes(home, 'hook', 'uninstall', 'codex', '--project', '--cwd', project)).code,
    ).toBe(0);
    expect(existsSync(codex.settingsFile(project))).toBe(false);
  });

  it('the project command runs the project’s own hermes, from any folder of the project', async () => {
    const home = tree({ '.hermes/extensions/guard.ts': guard });
    const project = tree({ 'src/deep/.keep': '' });
    execFileSync('git', ['init', '-q', project]);
    mkdirSync(join(project, 'node_modules/.bin'), { recursive: true });
    symlinkSync(bin, join(project, 'node_modules/.bin/hermes'));
    const event = {
      session_id: 's',
      cwd: join(project, 'src/deep'),
      hook_event_name: 'PreToolUse',
      tool_name: 'Write',
      tool_input: { file_path: 'secret', content: '' },
    };
    const env = { HOME: home, HERMES_HOME: join(home, '.hermes') };
    // Each agent runs the command with a shell, in the session's folder: Claude Code tells it
    // the project in $CLAUDE_PROJECT_DIR, Codex tells it nothing.
    const runs = [
      { agent: claudeCode, env: { ...env, CLAUDE_PROJECT_DIR: project } },
      { agent: codex, env },
    ];
    for (const { agent, env } of runs) {
      const answer = await runProcess('/bin/sh', ['-c', agent.projectCommand], {
        cwd: join(project, 'src/deep'),
        env,
        stdin: JSON.stringify(event),
      });
      expect(answer.code, answer.stderr).toBe(0);
      expect(JSON.parse(answer.stdout).hookSpecificOutput).toMatchObject({
        permissionDecision: 'deny',
        permissionDecisionReason: expect.stringContaining('no secrets'),
      });
    }
    // Outside a repository, Codex's session folder is the one whose .codex/ it read.
    const plain = tree();
    mkdirSync(join(plain, 'node_modules/.bin'), { recursive: true });
    symlinkSync(bin, join(plain, 'node_modules/.bin/hermes'));
    const answer = await runProcess('/bin/sh', ['-c', codex.projectCommand], {
      cwd: plain,
      env: { ...env, GIT_CEILING_DIRECTORIES: plain },
      stdin: JSON.stringify({ ...event, cwd: plain }),
    });
    expect(JSON.parse(answer.stdout).hookSpecificOutput.permissionDecision).toBe('deny');
  });

  it('--local writes Claude Code’s settings.local.json with this machine’s command', async () => {
    const home = tree();
    const project = tree({ '.claude/settings.json': userSettings });
    const local = join(project, '.claude/settings.local.json');
    const installed = await hermes(
      home,
      'hook',
      'install',
      'claude-code',
      '--local',
      '--cwd',
      project,
    );
    expect(installed.code).toBe(0);
    expect(installed.stdout).toContain(`to ${local}.`);
    expect(new Set(commands(local))).toEqual(userLines(claudeCode, home));
    expect(read(join(project, '.claude/settings.json'))).toBe(userSettings);

    // The same hook in the shared settings too would run twice: install says so.
    const shared = await hermes(
      home,
      'hook',
      'install',
      'claude-code',
      '--project',
      '--cwd',
      project,
    );
    expect(shared.stdout).toContain(
      `${local} runs the hermes hook too, so Claude Code would run it twice; remove one: hermes hook uninstall claude-code --local --cwd ${project}`,
    );
    const doctor = await hermes(home, 'extensions', 'doctor', '--cwd', project);
    expect(doctor.stdout).toContain(`Claude Code hook (${local}): runs the hermes hook`);

    expect(
      (await hermes(home, 'hook', 'uninstall', 'claude-code', '--local', '--cwd', project)).code,
    ).toBe(0);
    expect(existsSync(local)).toBe(false);
    expect(
      (await hermes(home, 'hook', 'uninstall', 'claude-code', '--project', '--cwd', project)).code,
    ).toBe(0);
    expect(read(join(project, '.claude/settings.json'))).toBe(userSettings);
  });

  it('refuses what it cannot do, and touches no file', async () => {
    const home = tree();
    const project = tree();
    for (const command of ['install', 'uninstall']) {
      const local = await hermes(home, 'hook', command, 'codex', '--local', '--cwd', project);
      expect(local.code).toBe(2);
      expect(local.stderr).toMatch(
        /Codex has no settings of your own inside a project: it reads hooks only from .*hooks\.json \(yours, without --local\) and .*\.codex\/hooks\.json \(the project's, --project\)/,
      );
      const unknown = await hermes(home, 'hook', command, 'gemini');
      expect(unknown.code).toBe(2);
      expect(unknown.stderr).toMatch(/unknown agent "gemini"; supported: claude-code, codex/);
    }
    expect(existsSync(join(project, '.codex'))).toBe(false);
    for (const broken of ['{ not json', '[1, 2]', '{"hooks": [1]}']) {
      write(home, { '.claude/settings.json': broken });
      for (const command of ['install', 'uninstall']) {
        const run = await hermes(home, 'hook', command, 'claude-code');
        if (command === 'uninstall' && broken === '{"hooks": [1]}') {
          // No hooks object: no hermes hook in it.
          expect(run.stdout, broken).toMatch(/nothing changed/);
          continue;
        }
        expect(run.code, `${command} ${broken}`).toBe(1);
        expect(run.stderr).toMatch(/settings\.json.*fix or move it first/);
      }
      expect(read(join(home, '.claude/settings.json'))).toBe(broken);
    }
  });
});
