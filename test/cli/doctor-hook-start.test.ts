import { chmodSync, mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { claudeCode } from '../../src/host/command-hook/agents.js';
import { tree, write } from '../support/fixtures.js';
import { bin, built } from '../support/run-bin.js';
import { hermes, hermesWith } from './hermes-cli.js';

/**
 * doctor tells whether the installed hook can start hermes: the user's own command is tried as a
 * real child process; a project hook's `node_modules/.bin/hermes` is read, never run
 * (doctor-project-programs.test.ts). One that cannot start (a package not built, no node on the
 * PATH) refuses every tool call, and a bare command from an earlier version would let them all
 * through; each is said with its fix.
 */

/** A project with its Claude Code hook installed in the shared settings (the project form). */
async function withProjectHook(): Promise<{ home: string; project: string }> {
  const home = tree();
  const project = tree({ '.git/HEAD': '' });
  const install = await installProjectHook(home, project);
  expect(install.code, install.stderr).toBe(0);
  return { home, project };
}

/** `hermes hook install claude-code --project` in `project`. */
function installProjectHook(home: string, project: string) {
  return hermes(home, 'hook', 'install', 'claude-code', '--project', '--cwd', project);
}

function binLink(project: string, target: string): void {
  mkdirSync(join(project, 'node_modules/.bin'), { recursive: true });
  symlinkSync(target, join(project, 'node_modules/.bin/hermes'));
}

const subject = /Claude Code hook \(.*\.claude\/settings\.json\)/;

describe.runIf(built)('hermes extensions doctor: can the installed hook start hermes', () => {
  it('passes a project hook whose hermes starts', async () => {
    const { home, project } = await withProjectHook();
    binLink(project, bin);
    const doctor = await hermes(home, 'extensions', 'doctor', '--cwd', project);
    expect(doctor.stdout).toMatch(
      /✓ Claude Code hook \(.*\): runs the hermes hook for SessionStart, UserPromptSubmit, PreToolUse/,
    );
    expect(doctor.code, doctor.stdout).toBe(0);
  });

  it('fails a project hook whose hermes-extensions is there but not built, without running it', async () => {
    const { home, project } = await withProjectHook();
    const pkg = join(project, 'node_modules/hermes-extensions');
    write(pkg, {
      'package.json': JSON.stringify({ name: 'hermes-extensions', version: '1.0.0' }),
      'bin/hermes.js': "#!/usr/bin/env node\nrequire('node:fs').writeFileSync('ran', '');\n",
    });
    chmodSync(join(pkg, 'bin/hermes.js'), 0o755);
    binLink(project, '../hermes-extensions/bin/hermes.js');
    const doctor = await hermes(home, 'extensions', 'doctor', '--cwd', project);
    expect(doctor.code).toBe(1);
    expect(doctor.stdout).toMatch(subject);
    expect(doctor.stdout).toContain(
      `its command runs the project's ${join(project, 'node_modules/.bin/hermes')}, whose hermes-extensions (${pkg}) is not built, so it does not start: the hook refuses every tool call in Claude Code until it does`,
    );
    expect(doctor.stdout).toContain('fix: npm install (in the project)');
  });

  it('fails a project hook when no node is on the PATH', async () => {
    const { home, project } = await withProjectHook();
    binLink(project, bin);
    const tools = tree();
    for (const tool of ['git', 'sh']) symlinkSync(`/usr/bin/${tool}`, join(tools, tool));
    const doctor = await hermesWith(
      { PATH: tools },
      home,
      'extensions',
      'doctor',
      '--cwd',
      project,
    );
    expect(doctor.code).toBe(1);
    expect(doctor.stdout).toContain(
      `its command runs the project's ${join(project, 'node_modules/.bin/hermes')} with the node on the PATH, and there is none (PATH=${tools})`,
    );
    expect(doctor.stdout).toContain(
      'fix: install Node.js, or put it on the PATH the agent runs with',
    );
  });

  it('warns of a bare command from an earlier version, which install replaces', async () => {
    const home = tree();
    const project = tree({ '.git/HEAD': '' });
    binLink(project, bin);
    const bare = '"$CLAUDE_PROJECT_DIR"/node_modules/.bin/hermes hook claude-code';
    const events = [
      'UserPromptSubmit',
      'PreToolUse',
      'PostToolUse',
      'PostToolBatch',
      'Stop',
      'SessionEnd',
    ];
    write(project, {
      '.claude/settings.json': JSON.stringify({
        hooks: Object.fromEntries(
          events.map((event) => [event, [{ hooks: [{ type: 'command', command: bare }] }]]),
        ),
      }),
    });
    const doctor = await hermes(home, 'extensions', 'doctor', '--cwd', project);
    expect(doctor.stdout).toMatch(
      /! Claude Code hook \(.*\): its command runs hermes bare, as earlier versions installed it: were hermes ever unable to start .* Claude Code would let every call through/,
    );
    expect(doctor.stdout).toContain(
      `fix: hermes hook install claude-code --project --cwd ${project}`,
    );
    const install = await installProjectHook(home, project);
    expect(install.stdout).toContain(
      `Updated the hermes hook's command for ${events.join(', ')} in`,
    );
    const mended = await hermes(home, 'extensions', 'doctor', '--cwd', project);
    expect(mended.stdout).toMatch(/✓ Claude Code hook \(.*\): runs the hermes hook/);
    expect(mended.code).toBe(0);
  });
});

describe.runIf(built)(
  'hermes extensions doctor: a user hook from before the pinned environment',
  () => {
    it.each(['unpinned-commands.json', 'home-pinned-commands.json'])(
      'warns that it takes HERMES_HOME, HERMES_TRUST_PROJECT or the daemon folder from the agent, and install mends it (%s)',
      async (fixture) => {
        const home = tree();
        const project = tree({ '.git/HEAD': '' });
        const earlier = JSON.parse(
          readFileSync(new URL(`../host/command-hook/${fixture}`, import.meta.url), 'utf8'),
        )['claude-code'].user as string;
        const command = earlier
          .replace('/home/me/.hermes', home)
          .replace('/usr/bin/node', process.execPath)
          .replace('/opt/hermes-extensions/bin/hermes.js', bin);
        write(home, {
          '.claude/settings.json': JSON.stringify({
            hooks: Object.fromEntries(
              claudeCode.installEvents.map((event) => [
                event,
                [{ hooks: [{ type: 'command', command }] }],
              ]),
            ),
          }),
        });
        const doctor = await hermes(home, 'extensions', 'doctor', '--cwd', project);
        expect(doctor.stdout).toMatch(
          /! Claude Code hook \(.*\): its command was installed by an earlier version: it takes \$HERMES_HOME, HERMES_TRUST_PROJECT or the hook daemon's folder \(HERMES_DAEMON_DIR, TMPDIR\) from the environment Claude Code gives it/,
        );
        expect(doctor.stdout).toContain('fix: hermes hook install claude-code');
        const install = await hermes(home, 'hook', 'install', 'claude-code');
        expect(install.stdout).toMatch(/Updated the hermes hook's command for/);
        const mended = await hermes(home, 'extensions', 'doctor', '--cwd', project);
        expect(mended.stdout).toMatch(/✓ Claude Code hook \(.*\): runs the hermes hook/);
      },
    );
  },
);

describe.runIf(built)(
  'hermes extensions doctor: a user hook that buffered the event with cat',
  () => {
    it('finds nothing to warn of (it guards as the current one does), and install replaces it', async () => {
      const home = tree();
      const project = tree({ '.git/HEAD': '' });
      const sockets = tree();
      const earlier = JSON.parse(
        readFileSync(
          new URL('../host/command-hook/buffered-commands.json', import.meta.url),
          'utf8',
        ),
      )['claude-code'].user as string;
      const command = earlier
        .replace('/home/me/.hermes', join(home, '.hermes'))
        .replace('/run/user/1000/hermes', sockets)
        .replace('/usr/bin/node', process.execPath)
        .replace('/opt/hermes-extensions/bin/hermes.js', bin);
      const settings = join(home, '.claude/settings.json');
      write(home, {
        '.claude/settings.json': JSON.stringify({
          hooks: Object.fromEntries(
            claudeCode.installEvents.map((event) => [
              event,
              [{ hooks: [{ type: 'command', command }] }],
            ]),
          ),
        }),
      });
      const doctor = await hermes(home, 'extensions', 'doctor', '--cwd', project);
      expect(doctor.stdout).toMatch(/✓ Claude Code hook \(.*\): runs the hermes hook/);
      expect(doctor.stdout).not.toContain('installed by an earlier version');
      const install = await hermes(home, 'hook', 'install', 'claude-code');
      expect(install.stdout).toMatch(/Updated the hermes hook's command for/);
      expect(readFileSync(settings, 'utf8')).not.toContain('cat; echo');
    });
  },
);
