import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse, parseDocument } from 'yaml';
import { tree } from '../../support/fixtures.js';
import { hermesEvent, hermesReads } from '../../support/hermes-agent-wire.js';
import { built, runBin } from '../../support/run-bin.js';

const EVENTS = [
  'pre_llm_call',
  'pre_tool_call',
  'post_tool_call',
  'on_session_end',
  'on_session_finalize',
];

const USER_CONFIG = `# my Hermes settings
model:
  default: some/model   # the one I like
hooks:
  pre_tool_call:
    - command: ~/bin/audit.sh
      matcher: terminal
extensions:
  paths: [hermes-extensions/workflow-guard]
`;

const hermes = (home: string, ...args: string[]) => runBin(args, { HERMES_HOME: home, HOME: home });

/**
 * The command split as Hermes splits a shell hook's command (POSIX words, no shell; python's
 * shlex, as its bridge does outside Windows), run with `stdin` as Hermes runs it.
 */
function runAsHermes(command: string, stdin: string, env: Record<string, string>) {
  const argv = JSON.parse(
    execFileSync(
      'python3',
      ['-c', 'import json,shlex,sys; print(json.dumps(shlex.split(sys.argv[1])))', command],
      {
        encoding: 'utf8',
      },
    ),
  ) as string[];
  const [program, ...args] = argv;
  const run = spawnSync(program as string, args, {
    input: stdin,
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '', ...env },
  });
  return { code: run.status ?? -1, stdout: run.stdout, stderr: run.stderr };
}

describe.runIf(built)('hermes hook install hermes-agent', () => {
  it('adds a fail-closed hook for each event to config.yaml, keeping the user’s comments, settings and hooks; twice is once', async () => {
    const home = tree({ 'config.yaml': USER_CONFIG });
    const file = join(home, 'config.yaml');
    const install = await hermes(home, 'hook', 'install', 'hermes-agent');
    expect(install.code, install.stderr).toBe(0);
    expect(install.stdout).toContain(`Added the hermes hook for ${EVENTS.join(', ')} to ${file}.`);
    expect(install.stdout).toMatch(/approve each hook the first time/);
    const text = readFileSync(file, 'utf8');
    expect(text).toContain('# my Hermes settings');
    // The yaml library keeps comments, not the spaces before them.
    expect(text).toMatch(/default: some\/model +# the one I like/);
    expect(text).toContain('paths: [hermes-extensions/workflow-guard]');
    const config = parse(text);
    expect(config.hooks.pre_tool_call[0]).toEqual({
      command: '~/bin/audit.sh',
      matcher: 'terminal',
    });
    for (const event of EVENTS) {
      const ours = config.hooks[event].at(-1);
      expect(ours).toEqual({
        command: expect.stringContaining('hook hermes-agent'),
        timeout: 30,
        // Hermes honours fail_closed at pre_tool_call only, and warns of it anywhere else
        // (agent/shell_hooks.py, _parse_single_entry).
        ...(event === 'pre_tool_call' ? { fail_closed: true } : {}),
      });
      expect(ours).not.toHaveProperty('matcher');
    }
    const again = await hermes(home, 'hook', 'install', 'hermes-agent');
    expect(again.stdout).toContain('already runs the hermes hook; nothing changed');
    expect(readFileSync(file, 'utf8')).toBe(text);
    // Our own settings in the same file are still read, and the hooks section is no problem.
    const doctor = await hermes(home, 'extensions', 'list', '--cwd', home);
    expect(doctor.stderr).not.toMatch(/hooks/);

    const uninstall = await hermes(home, 'hook', 'uninstall', 'hermes-agent');
    expect(uninstall.stdout).toContain(`Removed the hermes hook for ${EVENTS.join(', ')}`);
    expect(parse(readFileSync(file, 'utf8'))).toEqual(parse(USER_CONFIG));
    expect(readFileSync(file, 'utf8')).toContain('# the one I like');
  });

  it('takes fail_closed off the entries of an earlier install where Hermes would only warn of it, keeping the user’s comments; twice is once', async () => {
    const home = tree({ 'config.yaml': USER_CONFIG });
    const file = join(home, 'config.yaml');
    await hermes(home, 'hook', 'install', 'hermes-agent');
    // An install of an earlier version: fail_closed on every entry, and a comment of the user's.
    const doc = parseDocument(readFileSync(file, 'utf8'));
    for (const event of EVENTS) doc.setIn(['hooks', event, 0, 'fail_closed'], true);
    doc.setIn(['hooks', 'post_tool_call', 0, 'failClosed'], true);
    const earlier = `${doc.toString({ lineWidth: 0 })}# kept at the end\n`;
    writeFileSync(file, earlier);
    const install = await hermes(home, 'hook', 'install', 'hermes-agent');
    expect(install.code, install.stderr).toBe(0);
    expect(install.stdout).toMatch(
      /Updated the hermes hook's command for pre_llm_call, post_tool_call, on_session_end, on_session_finalize/,
    );
    const text = readFileSync(file, 'utf8');
    expect(text).toContain('# my Hermes settings');
    expect(text).toContain('# kept at the end');
    const config = parse(text);
    expect(config.hooks.pre_tool_call.at(-1)).toMatchObject({ fail_closed: true });
    for (const event of EVENTS.filter((e) => e !== 'pre_tool_call')) {
      expect(config.hooks[event].at(-1), event).not.toHaveProperty('fail_closed');
      expect(config.hooks[event].at(-1), event).not.toHaveProperty('failClosed');
    }
    const again = await hermes(home, 'hook', 'install', 'hermes-agent');
    expect(again.stdout).toContain('already runs the hermes hook; nothing changed');
    expect(readFileSync(file, 'utf8')).toBe(text);
  });

  it('doctor says when Hermes has not been allowed to run the hooks, and is satisfied once it has', async () => {
    const home = tree({ 'config.yaml': 'model: m\n' });
    await hermes(home, 'hook', 'install', 'hermes-agent');
    const before = await hermes(home, 'extensions', 'doctor', '--cwd', home);
    expect(before.stdout).toMatch(
      /Hermes agent hook .*has not been allowed to run it for pre_llm_call, pre_tool_call, post_tool_call, on_session_end, on_session_finalize/,
    );
    const command = parse(readFileSync(join(home, 'config.yaml'), 'utf8')).hooks.pre_tool_call[0]
      .command;
    const approvals = EVENTS.map((event) => ({
      event,
      command,
      approved_at: '2026-11-26T00:00:00Z',
    }));
    writeFileSync(join(home, 'shell-hooks-allowlist.json'), JSON.stringify({ approvals }));
    const after = await hermes(home, 'extensions', 'doctor', '--cwd', home);
    expect(after.stdout).not.toMatch(/has not been allowed/);
    expect(after.stdout).toMatch(/Hermes agent hook .*runs the hermes hook for pre_llm_call/);
  });

  it('installs the Python plugin or the shell hooks, never both (each would check every call again, in a turn of its own)', async () => {
    const home = tree({ 'config.yaml': 'model: m\n' });
    await hermes(home, 'hook', 'install', 'hermes-agent');
    const plugin = await hermes(home, 'hook', 'install', 'hermes-agent', '--plugin');
    expect(plugin.code, plugin.stderr).toBe(0);
    expect(plugin.stdout).toMatch(
      /Installed the Hermes agent plugin in .*plugins\/hermes-extensions/,
    );
    expect(plugin.stdout).toMatch(
      /Removed the hermes shell hooks for pre_llm_call.*check every call twice/,
    );
    let config = parse(readFileSync(join(home, 'config.yaml'), 'utf8'));
    expect(config.hooks).toBeUndefined();
    expect(config.plugins.enabled).toContain('hermes-extensions');
    expect(existsSync(join(home, 'plugins', 'hermes-extensions', 'plugin.yaml'))).toBe(true);

    const shell = await hermes(home, 'hook', 'install', 'hermes-agent');
    expect(shell.stdout).toMatch(/Removed the Hermes agent plugin from .*check every call twice/);
    config = parse(readFileSync(join(home, 'config.yaml'), 'utf8'));
    expect(config.hooks.pre_tool_call).toHaveLength(1);
    expect(config.plugins?.enabled ?? []).not.toContain('hermes-extensions');
    expect(existsSync(join(home, 'plugins', 'hermes-extensions'))).toBe(false);

    const wrong = await hermes(home, 'hook', 'install', 'codex', '--plugin');
    expect(wrong).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/--plugin is for hermes-agent/),
    });
  });

  it('takes over a narrowed or fail-open hermes hook, and refuses a config it cannot read or a project scope', async () => {
    const home = tree({
      'config.yaml':
        'hooks:\n  pre_tool_call:\n    - command: hermes-extensions hook hermes-agent\n      matcher: write_file\n',
    });
    const install = await hermes(home, 'hook', 'install', 'hermes-agent');
    expect(install.stdout).toMatch(/Updated the hermes hook's command for pre_tool_call/);
    const entries = parse(readFileSync(join(home, 'config.yaml'), 'utf8')).hooks.pre_tool_call;
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ fail_closed: true });
    expect(entries[0]).not.toHaveProperty('matcher');

    const broken = tree({ 'config.yaml': 'hooks: [1, 2\n' });
    const refused = await hermes(broken, 'hook', 'install', 'hermes-agent');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/config\.yaml is not valid YAML.*fix or move it first/);
    const project = await hermes(
      home,
      'hook',
      'install',
      'hermes-agent',
      '--project',
      '--cwd',
      home,
    );
    expect(project.code).toBe(2);
    expect(project.stderr).toMatch(/reads hooks only from .*config\.yaml.*without --project/);
  });

  it('the installed command, run as Hermes runs it, answers in its wire, and blocks when hermes cannot run', async () => {
    const home = tree({
      'config.yaml': 'extensions:\n  paths: [hermes-extensions/workflow-guard]\n',
    });
    const project = tree({ '.git/HEAD': '', 'src/a.ts': '' });
    await hermes(home, 'hook', 'install', 'hermes-agent');
    const command = parse(readFileSync(join(home, 'config.yaml'), 'utf8')).hooks.pre_tool_call[0]
      .command as string;
    const write = hermesEvent('pre_tool_call', {
      session_id: 's',
      cwd: project,
      tool_name: 'write_file',
      args: { path: 'src/a.ts', content: 'x' },
      tool_call_id: 'c1',
    });
    const env = { HERMES_HOME: home, HOME: home };
    const answered = runAsHermes(command, write, env);
    expect(hermesReads('pre_tool_call', answered)).toMatchObject({
      action: 'block',
      message: expect.stringMatching(/plan/),
    });
    // The package moved away: the wrapper answers exit 2 and the reason, which Hermes blocks on.
    const moved = command.replace(/\S*bin\/hermes\.js/, join(home, 'gone', 'hermes.js'));
    expect(moved).not.toBe(command);
    const failed = runAsHermes(moved, write, env);
    expect(failed.code).toBe(2);
    expect(hermesReads('pre_tool_call', failed)).toEqual({
      action: 'block',
      message: expect.stringMatching(
        /^Hermes could not check this call, so it is refused: .*hermes\.js is missing/,
      ),
    });
    expect(existsSync(join(home, 'gone'))).toBe(false);
  });
});
