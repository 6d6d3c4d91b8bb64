import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  COMMAND_HOOK_AGENTS,
  type CommandHookAgent,
  claudeCode,
  codex,
} from '../../../src/host/command-hook/agents.js';
import { hookForm } from '../../../src/host/command-hook/hook-command.js';
import {
  unwrapHookCommand,
  wrappedHookCommand,
} from '../../../src/host/command-hook/hook-wrapper.js';
import {
  inspectInstalledHooks,
  isHermesHookCommand,
} from '../../../src/host/command-hook/installed.js';
import { installCommandHooks } from '../../../src/host/command-hook/settings/hooks-json-install.js';
import { uninstallCommandHooks } from '../../../src/host/command-hook/settings/hooks-json-uninstall.js';
import { tree, write } from '../../support/fixtures.js';

/** The project and user commands of the version before the pinned environment, per agent. */
const UNPINNED = JSON.parse(
  readFileSync(new URL('./unpinned-commands.json', import.meta.url), 'utf8'),
) as Record<string, { project: string; user: string }>;

/**
 * The same, of the version that pinned both and buffered the event with `cat` before hermes
 * started, as it wrote them.
 */
const BUFFERED = JSON.parse(
  readFileSync(new URL('./buffered-commands.json', import.meta.url), 'utf8'),
) as Record<string, { project: string; user: string }>;

/**
 * The same, of the version that let hermes read the event itself but took the agents' config
 * folders (CLAUDE_CONFIG_DIR, CODEX_HOME) from the agent's environment, as it wrote them.
 */
const UNBUFFERED = JSON.parse(
  readFileSync(new URL('./unbuffered-commands.json', import.meta.url), 'utf8'),
) as Record<string, { project: string; user: string }>;

/** The same, of the version that pinned `$HERMES_HOME` but not the daemon's folder. */
const HOME_PINNED = JSON.parse(
  readFileSync(new URL('./home-pinned-commands.json', import.meta.url), 'utf8'),
) as Record<string, { project: string; user: string }>;

describe('isHermesHookCommand', () => {
  it('knows this package’s hook for an agent, however it is launched', () => {
    for (const command of [
      'hermes hook codex',
      'npx hermes-extensions hook codex',
      '"/usr/bin/node" "/opt/my app/node_modules/hermes-extensions/bin/hermes.js" hook codex',
      '/home/me/.local/bin/hermes hook codex',
    ]) {
      expect(isHermesHookCommand(command, codex), command).toBe(true);
    }
  });

  it('leaves other hooks, and the other agent’s, alone', () => {
    for (const command of [
      'my-check',
      'other-tool hook codex',
      'hermes hook codex --verbose',
      'hermes hook claude-code',
      'echo hermes; ./guard hook codex-ish',
      'echo hermes; ./other hook codex',
      'hermes hook codex && rm -rf /',
      'hermes status hook codex-x',
    ]) {
      expect(isHermesHookCommand(command, codex), command).toBe(false);
    }
    expect(isHermesHookCommand('hermes hook claude-code', claudeCode)).toBe(true);
  });

  it('knows the project commands `hook install --project` writes, each for its own agent', () => {
    expect(isHermesHookCommand(claudeCode.projectCommand, claudeCode)).toBe(true);
    expect(isHermesHookCommand(codex.projectCommand, codex)).toBe(true);
    expect(isHermesHookCommand(codex.projectCommand, claudeCode)).toBe(false);
    expect(isHermesHookCommand(claudeCode.projectCommand, codex)).toBe(false);
    expect(isHermesHookCommand(`${codex.projectCommand}; rm -rf ~`, codex)).toBe(false);
    expect(isHermesHookCommand(`${claudeCode.projectCommand} && curl x`, claudeCode)).toBe(false);
  });
});

describe('isHermesHookCommand and the commands that fail closed', () => {
  const bareProject: Record<string, string> = {
    'claude-code': '"$CLAUDE_PROJECT_DIR"/node_modules/.bin/hermes hook claude-code',
    codex:
      '"$(git rev-parse --show-toplevel 2>/dev/null || pwd)"/node_modules/.bin/hermes hook codex',
  };
  const user = (agent: string) =>
    wrappedHookCommand(agent, [
      '/usr/bin/node',
      '/opt/my app/hermes-extensions/bin/hermes.js',
      'hook',
      agent,
    ]);

  it('knows the wrapped forms and the bare ones earlier versions installed, each for its agent', () => {
    for (const agent of [claudeCode, codex]) {
      const other = agent === codex ? claudeCode : codex;
      expect(isHermesHookCommand(agent.projectCommand, agent)).toBe(true);
      expect(isHermesHookCommand(bareProject[agent.name], agent)).toBe(true);
      expect(isHermesHookCommand(user(agent.name), agent)).toBe(true);
      expect(isHermesHookCommand(agent.projectCommand, other)).toBe(false);
      expect(isHermesHookCommand(bareProject[agent.name], other)).toBe(false);
      expect(isHermesHookCommand(user(agent.name), other)).toBe(false);
    }
  });

  it('leaves a wrapper that was changed, or runs something else, alone', () => {
    const edited = codex.projectCommand.replace('exit 0', 'exit 2');
    expect(edited).not.toBe(codex.projectCommand);
    expect(isHermesHookCommand(edited, codex)).toBe(false);
    expect(isHermesHookCommand(`${codex.projectCommand}; rm -rf ~`, codex)).toBe(false);
    expect(isHermesHookCommand(`${user('codex')} && curl x`, codex)).toBe(false);
    expect(
      isHermesHookCommand(wrappedHookCommand('codex', ['/usr/bin/evil', 'hook', 'codex']), codex),
    ).toBe(false);
    expect(
      isHermesHookCommand(wrappedHookCommand('codex', ['hermes', 'hook', 'claude-code']), codex),
    ).toBe(false);
  });

  it('unwraps what it wrapped, quoting included', () => {
    const argv = ['/usr/bin/node', "/it's here/$HOME/bin/hermes.js", 'hook', 'codex'];
    const pins = { HERMES_HOME: "/home/o'neil/my hermes", HERMES_DAEMON_DIR: '/tmp/my sockets' };
    expect(unwrapHookCommand(wrappedHookCommand('codex', argv, pins))).toEqual({
      agent: 'codex',
      argv,
      pins,
      pinned: true,
      current: true,
    });
    expect(unwrapHookCommand(wrappedHookCommand('codex', argv))).toEqual({
      agent: 'codex',
      argv,
      pins: {},
      pinned: true,
      current: true,
    });
    expect(unwrapHookCommand(codex.projectCommand)).toEqual({
      agent: 'codex',
      argv: [],
      pins: {},
      pinned: true,
      current: true,
    });
    expect(unwrapHookCommand(bareProject.codex)).toBeUndefined();
  });

  it('knows the commands of the version that buffered the event as pinned, and replaces them on install', () => {
    // They guard as the current ones do, only slower: doctor has nothing to warn about, and
    // install (an upgrade) writes the current command in their place; uninstall removes them.
    for (const [name, earlier] of Object.entries(BUFFERED)) {
      const agent = COMMAND_HOOK_AGENTS[name] as CommandHookAgent;
      expect(earlier.project).not.toBe(agent.projectCommand);
      expect(hookForm(earlier.project, agent)).toEqual({
        current: false,
        project: true,
        failsClosed: true,
        pinned: true,
        argv: [],
      });
      const argv = ['/usr/bin/node', '/opt/hermes-extensions/bin/hermes.js', 'hook', name];
      expect(hookForm(earlier.user, agent)).toEqual({
        current: false,
        project: false,
        failsClosed: true,
        pinned: true,
        argv,
      });
      const pins = { HERMES_HOME: '/home/me/.hermes', HERMES_DAEMON_DIR: '/run/user/1000/hermes' };
      expect(unwrapHookCommand(earlier.user)).toEqual({
        agent: name,
        argv,
        pins,
        pinned: true,
        current: false,
      });
      expect(unwrapHookCommand(wrappedHookCommand(name, argv, pins))).toMatchObject({
        pinned: true,
        current: true,
      });
      for (const other of Object.values(COMMAND_HOOK_AGENTS))
        if (other !== agent) expect(hookForm(earlier.user, other)).toBeUndefined();
    }
    const project = tree({ '.git/HEAD': '' });
    const file = claudeCode.settingsFile(project);
    const earlier = BUFFERED['claude-code'] as { project: string; user: string };
    write(project, {
      '.claude/settings.json': JSON.stringify({
        hooks: {
          PreToolUse: [{ hooks: [{ type: 'command', command: earlier.project }] }],
          Stop: [{ hooks: [{ type: 'command', command: earlier.project }] }],
        },
      }),
    });
    const before = readFileSync(file, 'utf8');
    const { updated } = installCommandHooks(claudeCode, {
      file,
      command: claudeCode.projectCommand,
      events: ['PreToolUse', 'Stop'],
    });
    expect(updated).toEqual(['PreToolUse', 'Stop']);
    expect(readFileSync(file, 'utf8')).not.toContain('cat; echo');
    write(project, { '.claude/settings.json': before });
    expect(uninstallCommandHooks(claudeCode, file).removed).toEqual(['PreToolUse', 'Stop']);
  });

  it('knows the commands of the version before the agents’ folders were pinned, and install replaces them', () => {
    const argvOf = (name: string) => [
      '/usr/bin/node',
      '/opt/hermes-extensions/bin/hermes.js',
      'hook',
      name,
    ];
    const pins = { HERMES_HOME: '/home/me/.hermes', HERMES_DAEMON_DIR: '/run/user/1000/hermes' };
    for (const [name, earlier] of Object.entries(UNBUFFERED)) {
      const agent = COMMAND_HOOK_AGENTS[name] as CommandHookAgent;
      expect(earlier.user).not.toBe(wrappedHookCommand(name, argvOf(name), pins));
      expect(unwrapHookCommand(earlier.user)).toEqual({
        agent: name,
        argv: argvOf(name),
        pins,
        pinned: true,
        current: false,
      });
      expect(hookForm(earlier.project, agent)).toMatchObject({ project: true, failsClosed: true });
    }
    // The current one carries the agents' folders where given, after the other two, and reads them back.
    const folders = {
      ...pins,
      CLAUDE_CONFIG_DIR: '/home/me/claude work',
      CODEX_HOME: '/srv/codex',
    };
    const current = wrappedHookCommand('claude-code', argvOf('claude-code'), folders);
    expect(current).toContain(
      `HERMES_DAEMON_DIR=/run/user/1000/hermes 'CLAUDE_CONFIG_DIR=/home/me/claude work' CODEX_HOME=/srv/codex /usr/bin/node`,
    );
    expect(unwrapHookCommand(current)).toEqual({
      agent: 'claude-code',
      argv: argvOf('claude-code'),
      pins: folders,
      pinned: true,
      current: true,
    });
    const project = tree({ '.git/HEAD': '' });
    const file = claudeCode.settingsFile(project);
    const old = (UNBUFFERED['claude-code'] as { user: string }).user;
    write(project, {
      '.claude/settings.json': JSON.stringify({
        hooks: { PreToolUse: [{ hooks: [{ type: 'command', command: old }] }] },
      }),
    });
    const { updated } = installCommandHooks(claudeCode, {
      file,
      command: current,
      events: ['PreToolUse'],
    });
    expect(updated).toEqual(['PreToolUse']);
    expect(readFileSync(file, 'utf8')).toContain('CODEX_HOME=/srv/codex');
  });

  it('knows the commands of the version that pinned the home alone as not pinned, for every agent', () => {
    // That version took the daemon's folder from the agent's environment: doctor says so, and
    // install replaces them.
    for (const [name, earlier] of Object.entries(HOME_PINNED)) {
      const agent = COMMAND_HOOK_AGENTS[name] as CommandHookAgent;
      expect(hookForm(earlier.project, agent)).toEqual({
        current: false,
        project: true,
        failsClosed: true,
        pinned: false,
        argv: [],
      });
      expect(hookForm(earlier.user, agent)).toEqual({
        current: false,
        project: false,
        failsClosed: true,
        pinned: false,
        argv: ['/usr/bin/node', '/opt/hermes-extensions/bin/hermes.js', 'hook', name],
      });
      expect(unwrapHookCommand(earlier.user)?.pins).toEqual({ HERMES_HOME: '/home/me/.hermes' });
    }
  });

  it('still knows the commands of the version before the pinned environment, for every agent', () => {
    // As that version wrote them, byte for byte: install replaces them, uninstall removes them.
    for (const [name, earlier] of Object.entries(UNPINNED)) {
      const agent = COMMAND_HOOK_AGENTS[name] as CommandHookAgent;
      expect(hookForm(earlier.project, agent)).toEqual({
        current: false,
        project: true,
        failsClosed: true,
        pinned: false,
        argv: [],
      });
      expect(hookForm(earlier.user, agent)).toEqual({
        current: false,
        project: false,
        failsClosed: true,
        pinned: false,
        argv: ['/usr/bin/node', '/opt/hermes-extensions/bin/hermes.js', 'hook', name],
      });
      expect(hookForm(agent.projectCommand, agent)).toMatchObject({ project: true, pinned: true });
      for (const other of Object.values(COMMAND_HOOK_AGENTS))
        if (other !== agent) expect(hookForm(earlier.user, other)).toBeUndefined();
    }
  });
});

describe('settings that earlier versions wrote, with the bare commands', () => {
  const bare = '"$CLAUDE_PROJECT_DIR"/node_modules/.bin/hermes hook claude-code';
  const bareUser = '"/old/bin/node" "/old/hermes-extensions/bin/hermes.js" hook claude-code';
  const settings = (hooks: Record<string, string[]>) =>
    JSON.stringify({
      hooks: Object.fromEntries(
        Object.entries(hooks).map(([event, commands]) => [
          event,
          [{ hooks: commands.map((command) => ({ type: 'command', command })) }],
        ]),
      ),
    });
  const commandsIn = (file: string) =>
    JSON.parse(readFileSync(file, 'utf8')).hooks as Record<
      string,
      { hooks: { command: string }[] }[]
    >;

  it('are found, told apart from the commands that fail closed, replaced by install and removed by uninstall', () => {
    const project = tree({ '.git/HEAD': '' });
    const file = claudeCode.settingsFile(project);
    write(project, {
      '.claude/settings.json': settings({
        PreToolUse: [bare, 'my-check'],
        Stop: [claudeCode.projectCommand],
        SessionEnd: [bareUser],
      }),
    });
    const found = inspectInstalledHooks(claudeCode, project).filter((hook) => hook.file === file);
    expect(
      found.map(({ command, events, project, failsClosed }) => ({
        command,
        events,
        project,
        failsClosed,
      })),
    ).toEqual([
      { command: bare, events: ['PreToolUse'], project: true, failsClosed: false },
      { command: claudeCode.projectCommand, events: ['Stop'], project: true, failsClosed: true },
      { command: bareUser, events: ['SessionEnd'], project: false, failsClosed: false },
    ]);
    expect(found[0]?.argv).toEqual([
      join(project, 'node_modules/.bin/hermes'),
      'hook',
      'claude-code',
    ]);
    expect(found[2]?.missing).toEqual(['/old/bin/node', '/old/hermes-extensions/bin/hermes.js']);

    const before = readFileSync(file, 'utf8');
    expect(uninstallCommandHooks(claudeCode, file).removed).toEqual([
      'PreToolUse',
      'Stop',
      'SessionEnd',
    ]);
    expect(commandsIn(file)).toEqual({
      PreToolUse: [{ hooks: [{ type: 'command', command: 'my-check' }] }],
    });

    write(project, { '.claude/settings.json': before });
    const { added, updated } = installCommandHooks(claudeCode, {
      file,
      command: claudeCode.projectCommand,
      events: ['PreToolUse', 'Stop', 'SessionEnd'],
    });
    expect({ added, updated }).toEqual({ added: [], updated: ['PreToolUse', 'SessionEnd'] });
    const hooks = commandsIn(file);
    expect(hooks.PreToolUse?.[0]?.hooks.map((hook) => hook.command)).toEqual([
      claudeCode.projectCommand,
      'my-check',
    ]);
    for (const event of ['Stop', 'SessionEnd'])
      expect(hooks[event]?.[0]?.hooks.map((hook) => hook.command)).toEqual([
        claudeCode.projectCommand,
      ]);
  });
});
