import { lstatSync, readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { HOME_ENTRIES } from '../../src/config/home-entries.js';
import { tree, tsExtension, write } from '../support/fixtures.js';
import { bin, built, runProcess } from '../support/run-bin.js';

/**
 * Leaving: every hook installed, the hook run and a project trusted (so `$HERMES_HOME` fills up),
 * then uninstalled — the user's folders are as they were before, file for file and byte for byte,
 * and what the Hermes agent keeps in the same home stays.
 */

/** Every file (with its bytes), link and folder under `root`, by path; `skip` names left out. */
function snapshot(root: string, skip: readonly string[] = []): Record<string, string> {
  const found: Record<string, string> = {};
  const walk = (dir: string) => {
    for (const name of readdirSync(dir).sort()) {
      const path = join(dir, name);
      const key = relative(root, path);
      if (skip.includes(key)) continue;
      const stat = lstatSync(path);
      if (stat.isSymbolicLink()) found[key] = `-> ${readlinkSync(path)}`;
      else if (stat.isDirectory()) {
        found[`${key}/`] = '';
        walk(path);
      } else found[key] = readFileSync(path, 'utf8');
    }
  };
  walk(root);
  return found;
}

/** A user's machine: $HOME, the Hermes agent's home in it with its own files, a daemon folder. */
function machine() {
  const root = tree();
  const home = join(root, 'home');
  const hermesHome = join(home, '.hermes');
  write(home, {
    // What the Hermes agent had put in its home before: none of it is this package's.
    '.hermes/config.yaml': '# my Hermes\nmodel:\n  default: some-model # the one I use\n',
    '.hermes/sessions/s1.json': '{"id":"s1"}\n',
    '.hermes/logs/gateway.log': 'gateway up\n',
    '.hermes/cache/models.json': '[]\n',
    '.hermes/plugins/someone-elses/plugin.yaml': 'name: someone-elses\n',
    '.hermes/shell-hooks-allowlist.json': '{"approvals": []}\n',
    '.bashrc': 'export PATH\n',
  });
  const env = {
    HOME: home,
    HERMES_HOME: hermesHome,
    HERMES_DAEMON_DIR: join(root, 'daemons'),
    CODEX_HOME: '',
    XDG_CONFIG_HOME: '',
    HERMES_TRUST_PROJECT: '',
    CLAUDE_PROJECT_DIR: undefined,
  };
  const run = (args: string[], options: { cwd?: string; stdin?: string } = {}) =>
    runProcess(process.execPath, [bin, ...args], { env, ...options });
  return { root, home, hermesHome, run };
}

/** A project with its own guard, its config naming a shipped one, in a git folder. */
function project(): string {
  return tree({
    '.git/HEAD': 'ref: refs/heads/main\n',
    '.hermes/config.yaml': 'extensions:\n  paths: [hermes-extensions/workflow-guard]\n',
    '.hermes/extensions/no-secrets.ts': tsExtension(
      'no-secrets',
      `hermes.on('intercept_tool_call', (e) => JSON.stringify(e.toolArgs).includes('secret') ? block('no secrets') : undefined);`,
    ),
    'src/app.ts': 'export const x = 1;\n',
  });
}

const claudeEvent = (cwd: string, event: Record<string, unknown>) =>
  JSON.stringify({
    session_id: 'session-1',
    transcript_path: '/dev/null',
    cwd,
    permission_mode: 'default',
    ...event,
  });

const USER_HOOKS = ['claude-code', 'codex', 'opencode', 'cursor', 'antigravity', 'hermes-agent'];
const PROJECT_HOOKS = ['claude-code', 'codex', 'opencode', 'cursor', 'antigravity'];

describe.runIf(built)('hermes extensions uninstall', () => {
  it('leaves the machine and the project as they were before install, the Hermes agent’s files byte-identical', async () => {
    const { home, hermesHome, root, run } = machine();
    const repo = project();
    const beforeHome = snapshot(home);
    const beforeProject = snapshot(repo);

    for (const agent of USER_HOOKS) expect((await run(['hook', 'install', agent])).code).toBe(0);
    for (const agent of PROJECT_HOOKS)
      expect((await run(['hook', 'install', agent, '--project', '--cwd', repo])).code).toBe(0);
    expect((await run(['hook', 'install', 'claude-code', '--local', '--cwd', repo])).code).toBe(0);
    // The plugin replaces the Hermes agent's shell hooks: both forms have been there.
    expect((await run(['hook', 'install', 'hermes-agent', '--plugin'])).code).toBe(0);
    expect((await run(['extensions', 'trust', '--yes', '--cwd', repo])).code).toBe(0);
    for (const event of [
      { hook_event_name: 'UserPromptSubmit', prompt: 'add a feature' },
      {
        hook_event_name: 'PreToolUse',
        tool_name: 'Write',
        tool_input: { file_path: join(repo, 'src/app.ts'), content: 'secret' },
        tool_use_id: 'call_1',
      },
    ]) {
      const answer = await run(['hook', 'claude-code'], {
        cwd: repo,
        stdin: claudeEvent(repo, event),
      });
      expect(answer.code).toBe(0);
    }
    // The home filled up with this package's own entries, each of them one the list names.
    const made = readdirSync(hermesHome).filter(
      (name) => !(`.hermes/${name}` in beforeHome || `.hermes/${name}/` in beforeHome),
    );
    expect(made.length).toBeGreaterThan(2);
    const listed = new Set(HOME_ENTRIES.map((entry) => entry.path.split('/')[0]));
    for (const name of made) expect(listed, `${name} is not in HOME_ENTRIES`).toContain(name);
    for (const name of ['trusted-projects.json', 'trusted-copies', 'turns'])
      expect(made).toContain(name);

    const removed = await run(['extensions', 'uninstall', '--global', '--project', '--yes'], {
      cwd: repo,
    });
    expect(removed.stderr).toBe('');
    expect(removed.code).toBe(0);
    expect(removed.stdout).toContain(join(hermesHome, 'trusted-projects.json'));
    expect(removed.stdout).toContain(join(repo, '.claude', 'settings.json'));
    expect(removed.stdout).toMatch(/Kept .*\.hermes.* the project's own config/);

    expect(snapshot(home)).toEqual(beforeHome);
    expect(snapshot(repo)).toEqual(beforeProject);
    // The daemon it stopped left nothing in its folder, which it made.
    expect(readdirSync(root)).toEqual(['home']);
  });

  it('--dry-run says what it would remove and changes nothing', async () => {
    const { home, hermesHome, run } = machine();
    const repo = project();
    expect((await run(['hook', 'install', 'claude-code'])).code).toBe(0);
    expect((await run(['hook', 'install', 'claude-code', '--project', '--cwd', repo])).code).toBe(
      0,
    );
    expect((await run(['extensions', 'trust', '--yes', '--cwd', repo])).code).toBe(0);
    const before = { home: snapshot(home), repo: snapshot(repo) };
    const dry = await run(['extensions', 'uninstall', '--project', '--global', '--dry-run'], {
      cwd: repo,
    });
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain('Would remove');
    expect(dry.stdout).toContain(join(hermesHome, 'trusted-projects.json'));
    expect(dry.stdout).toContain(join(home, '.claude', 'settings.json'));
    expect(dry.stdout).toContain(join(repo, '.claude', 'settings.json'));
    expect({ home: snapshot(home), repo: snapshot(repo) }).toEqual(before);
  });

  it("--project alone takes out only the project's hooks", async () => {
    const { home, hermesHome, run } = machine();
    const repo = project();
    expect((await run(['hook', 'install', 'claude-code'])).code).toBe(0);
    expect((await run(['hook', 'install', 'claude-code', '--project', '--cwd', repo])).code).toBe(
      0,
    );
    expect((await run(['extensions', 'trust', '--yes', '--cwd', repo])).code).toBe(0);
    const before = snapshot(home);
    const removed = await run(['extensions', 'uninstall', '--project', '--yes'], { cwd: repo });
    expect(removed.code).toBe(0);
    expect(removed.stdout).not.toContain(hermesHome);
    expect(snapshot(home)).toEqual(before);
    expect(snapshot(repo)).not.toHaveProperty('.claude/');
  });

  it('names the hooks of the other projects it trusted, with the command that removes them', async () => {
    const { run } = machine();
    const other = project();
    expect((await run(['hook', 'install', 'codex', '--project', '--cwd', other])).code).toBe(0);
    expect((await run(['extensions', 'trust', '--yes', '--cwd', other])).code).toBe(0);
    const removed = await run(['extensions', 'uninstall', '--dry-run'], { cwd: project() });
    expect(removed.stdout).toContain(
      `Kept the hermes hooks of Codex in ${join(other, '.codex', 'hooks.json')}: another project's (hermes extensions uninstall --project --cwd ${other})`,
    );
  });

  it('off a terminal, without --yes, refuses and changes nothing', async () => {
    const { home, run } = machine();
    expect((await run(['hook', 'install', 'claude-code'])).code).toBe(0);
    const before = snapshot(home);
    const refused = await run(['extensions', 'uninstall']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/--yes/);
    expect(refused.stderr).toMatch(/--dry-run/);
    expect(snapshot(home)).toEqual(before);
  });

  it("without --project, the project's hooks stay and it says how to remove them", async () => {
    const { home, run } = machine();
    const repo = project();
    expect((await run(['hook', 'install', 'claude-code', '--project', '--cwd', repo])).code).toBe(
      0,
    );
    const settings = readFileSync(join(repo, '.claude/settings.json'), 'utf8');
    const removed = await run(['extensions', 'uninstall', '--yes'], { cwd: repo });
    expect(removed.code).toBe(0);
    expect(readFileSync(join(repo, '.claude/settings.json'), 'utf8')).toBe(settings);
    expect(removed.stdout).toContain(join(repo, '.claude', 'settings.json'));
    expect(removed.stdout).toContain('--project');
    expect(snapshot(home)).not.toHaveProperty('.hermes/trusted-projects.json');
  });
  it('a settings file it cannot read is named, exit 1, and the rest is removed all the same', async () => {
    const { home, run } = machine();
    const repo = project();
    expect((await run(['hook', 'install', 'claude-code'])).code).toBe(0);
    write(repo, { '.claude/settings.json': '{ "hooks": ' });
    const removed = await run(['extensions', 'uninstall', '--project', '--global', '--yes'], {
      cwd: repo,
    });
    expect(removed.code).toBe(1);
    expect(removed.stderr).toContain(
      `not removed: the hermes hooks of Claude Code in ${join(repo, '.claude/settings.json')}`,
    );
    expect(removed.stderr).toMatch(/not valid JSON/);
    expect(readFileSync(join(repo, '.claude/settings.json'), 'utf8')).toBe('{ "hooks": ');
    expect(snapshot(home)).not.toHaveProperty('.claude/settings.json');
  });
});

describe.runIf(built)('install then uninstall leaves nothing it created', () => {
  it.each([
    ['claude-code', '.claude'],
    ['codex', '.codex'],
    ['opencode', '.opencode'],
    ['cursor', '.cursor'],
    ['antigravity', '.agents'],
  ])('hook uninstall %s --project removes the %s folder install made', async (agent, folder) => {
    const { run } = machine();
    const repo = project();
    const before = snapshot(repo);
    expect((await run(['hook', 'install', agent, '--project', '--cwd', repo])).code).toBe(0);
    expect(snapshot(repo)).toHaveProperty(`${folder}/`);
    expect((await run(['hook', 'uninstall', agent, '--project', '--cwd', repo])).code).toBe(0);
    expect(snapshot(repo)).toEqual(before);
  });

  it('a folder that holds anything else stays, with it', async () => {
    const { run } = machine();
    const repo = project();
    write(repo, { '.claude/commands/review.md': 'review this\n' });
    const before = snapshot(repo);
    expect((await run(['hook', 'install', 'claude-code', '--project', '--cwd', repo])).code).toBe(
      0,
    );
    expect((await run(['hook', 'uninstall', 'claude-code', '--project', '--cwd', repo])).code).toBe(
      0,
    );
    expect(snapshot(repo)).toEqual(before);
  });

  it("the Hermes plugin's uninstall takes out the config.yaml its install made", async () => {
    const { hermesHome, run } = machine();
    const before = snapshot(hermesHome, ['config.yaml']);
    for (const config of [undefined, '# mine\nmodel: x\n', 'model: x\nplugins:\n  enabled: []\n']) {
      if (config === undefined) rmSync(join(hermesHome, 'config.yaml'));
      else write(hermesHome, { 'config.yaml': config });
      expect((await run(['hook', 'install', 'hermes-agent', '--plugin'])).code).toBe(0);
      expect(readFileSync(join(hermesHome, 'config.yaml'), 'utf8')).toContain('hermes-extensions');
      expect((await run(['hook', 'uninstall', 'hermes-agent', '--plugin'])).code).toBe(0);
      const after = snapshot(hermesHome);
      expect(after['config.yaml']).toBe(config);
      delete after['config.yaml'];
      expect(after).toEqual(before);
    }
  });

  it('the Hermes plugin’s uninstall keeps what another wrote beside its entry', async () => {
    const { hermesHome, run } = machine();
    rmSync(join(hermesHome, 'config.yaml'));
    expect((await run(['hook', 'install', 'hermes-agent', '--plugin'])).code).toBe(0);
    const text = readFileSync(join(hermesHome, 'config.yaml'), 'utf8');
    // The agent (or the user) adds a plugin of its own next to ours.
    write(hermesHome, {
      'config.yaml': text.replace('- hermes-extensions', '- hermes-extensions\n    - other'),
    });
    expect((await run(['hook', 'uninstall', 'hermes-agent', '--plugin'])).code).toBe(0);
    expect(readFileSync(join(hermesHome, 'config.yaml'), 'utf8')).toBe(
      'plugins:\n  enabled:\n    - other\n',
    );
  });
});
