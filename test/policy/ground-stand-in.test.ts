import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, lstatSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { protectedGround } from '../../src/policy/protected/ground.js';
import { groundSandboxAvailability } from '../../src/policy/sandbox/ground-availability.js';
import { groundMounts } from '../../src/policy/sandbox/ground-mounts.js';
import {
  groundSandboxCommand,
  groundSandboxedCommandOf,
} from '../../src/policy/sandbox/ground-sandbox.js';
import { standInText } from '../../src/policy/sandbox/stand-in.js';
import { tree } from '../support/fixtures.js';
import { runShellAsync as run } from '../support/sandbox.js';

/**
 * bash reads the first of `~/.bash_profile`, `~/.bash_login` and `~/.profile`. A command the
 * protected-ground sandbox runs must not create `~/.bash_profile` (an `exit 0` there silences
 * every Codex hook, which runs with `$SHELL -lc`), yet what blocks it stands on the disk while
 * the command runs, where an empty file would hide the user's `~/.profile` from every login shell
 * started meanwhile. The line makes a stand-in that reads the later file (stand-in.ts).
 */
const tools = groundSandboxAvailability();
const linux = tools.available && tools.platform === 'linux';

let home = '';
let before: string | undefined;
beforeEach(() => {
  before = process.env.HOME;
  home = tree({ '.profile': 'echo from-profile\n' });
  process.env.HOME = home;
});
afterEach(() => {
  process.env.HOME = before;
});

function setup() {
  const project = tree({ '.git/HEAD': '' });
  const hermesHome = tree({ 'config.yaml': 'extensions: {}\n' });
  const env = { ...process.env, HOME: home, HERMES_HOME: hermesHome };
  return { project, env, ground: protectedGround(project, env) };
}

/** A login shell of the user's, outside any sandbox: what it reads before its command. */
function loginShell(env: NodeJS.ProcessEnv) {
  return spawnSync('bash', ['-lc', 'echo login-done'], { env, encoding: 'utf8' }).stdout;
}

async function until(done: () => boolean) {
  for (let i = 0; i < 400 && !done(); i++) await new Promise((r) => setTimeout(r, 25));
  expect(done()).toBe(true);
}

describe('the stand-in for a missing login start-up file', () => {
  it('reads the first later file that is there, as bash does with the file missing', () => {
    const text = standInText([join(home, '.bash_login'), join(home, '.profile')]);
    const script = join(tree({}), 'stand-in');
    writeFileSync(script, text);
    const sourced = spawnSync('bash', ['-c', `. '${script}'; echo after`], { encoding: 'utf8' });
    expect(sourced.stdout).toBe('from-profile\nafter\n');
    writeFileSync(join(home, '.bash_login'), 'echo from-login\n');
    const again = spawnSync('bash', ['-c', `. '${script}'`], { encoding: 'utf8' });
    expect(again.stdout).toBe('from-login\n');
  });

  it('is what the mounts block a missing ~/.bash_profile and ~/.bash_login with', () => {
    const { ground } = setup();
    const blocked = groundMounts(ground).blocked;
    const profile = blocked.find((b) => b.path === join(home, '.bash_profile'));
    expect(profile?.standIn).toBe(standInText([join(home, '.bash_login'), join(home, '.profile')]));
    expect(blocked.find((b) => b.path === join(home, '.bash_login'))?.standIn).toBe(
      standInText([join(home, '.profile')]),
    );
    // Nothing stands in for a file bash does not read in front of another.
    expect(blocked.find((b) => b.path === join(home, '.zshenv'))).toEqual({
      path: join(home, '.zshenv'),
      kind: 'file',
    });
  });
});

describe.runIf(linux)('the protected-ground sandbox and a missing ~/.bash_profile', () => {
  it('keeps the command from making it while login shells outside read ~/.profile, and leaves nothing', async () => {
    const { project, env, ground } = setup();
    const command = [
      'printf \'echo pwned; exit 0\\n\' > ~/.bash_profile; echo "write=$?"',
      'printf \'echo pwned; exit 0\\n\' > ~/.bash_login; echo "login=$?"',
      "bash -lc 'echo inside-done'",
      'echo "umask=$(umask)"',
      'touch ready',
      'while [ ! -e go ]; do sleep 0.05; done',
    ].join('\n');
    const made = groundSandboxCommand(command, ground);
    if (made.kind !== 'sandboxed') throw new Error(made.reason);
    const running = run(made.command, project, env);
    await until(() => existsSync(join(project, 'ready')));
    // While it runs: a login shell outside reads the user's ~/.profile through the stand-in, and
    // the same line is made again (the agent's copy of it is still recognised).
    expect(loginShell(env)).toBe('from-profile\nlogin-done\n');
    expect(lstatSync(join(home, '.bash_profile')).mode & 0o777).toBe(0o444);
    expect(groundSandboxCommand(command, ground)).toEqual(made);
    expect(groundSandboxedCommandOf(made.command, ground)).toBe(command);
    writeFileSync(join(project, 'go'), '');
    const done = await running;
    expect(done.code, done.stderr).toBe(0);
    expect(done.stdout).toContain('write=1');
    expect(done.stdout).toContain('login=1');
    expect(done.stdout).toContain('from-profile\ninside-done\n');
    expect(done.stdout).not.toContain('pwned');
    // The stand-ins are made read-only without the command's own files being made so.
    expect(done.stdout).toContain(`umask=${process.umask().toString(8).padStart(4, '0')}`);
    expect(existsSync(join(home, '.bash_profile'))).toBe(false);
    expect(existsSync(join(home, '.bash_login'))).toBe(false);
    expect(loginShell(env)).toBe('from-profile\nlogin-done\n');
  });

  // Two hooks with different $HERMES_HOMEs hold different locks: the line of one may remove the
  // stand-in on the disk between the other's making it and starting bubblewrap. What bubblewrap
  // binds is the text kept on protected ground, which no other line removes.
  it('binds the text kept on protected ground, not the file on the disk', () => {
    const { ground } = setup();
    const made = groundSandboxCommand('true', ground);
    if (made.kind !== 'sandboxed') throw new Error(made.reason);
    const text = standInText([join(home, '.bash_login'), join(home, '.profile')]);
    const bound = new RegExp(
      `--ro-bind '(${ground.hermesHome}/ground-sandbox/stand-in-[0-9a-f]{16})' '${join(home, '.bash_profile')}'`,
    ).exec(made.command);
    expect(bound, made.command).not.toBeNull();
    expect(readFileSync(bound?.[1] as string, 'utf8')).toBe(text);
  });

  it('takes a stand-in a killed line left for the missing file: the same line, which removes it', async () => {
    const { project, env, ground } = setup();
    const made = groundSandboxCommand('true', ground);
    const left = join(home, '.bash_profile');
    writeFileSync(left, standInText([join(home, '.bash_login'), join(home, '.profile')]));
    chmodSync(left, 0o444);
    expect(groundSandboxCommand('true', ground)).toEqual(made);
    if (made.kind !== 'sandboxed') throw new Error(made.reason);
    const done = await run(made.command, project, env);
    expect(done.code, done.stderr).toBe(0);
    expect(existsSync(left)).toBe(false);
  });

  it("holds the user's own ~/.bash_profile read-only, and leaves it", async () => {
    const { project, env, ground } = setup();
    // Read-only, and the stand-in's size: only its text tells it apart.
    const own = join(home, '.bash_profile');
    const text = standInText([join(home, '.bash_login'), join(home, '.profile')]);
    writeFileSync(own, `:${text.slice(1)}`);
    chmodSync(own, 0o444);
    const made = groundSandboxCommand(
      "chmod u+w ~/.bash_profile; echo 'exit 0' >> ~/.bash_profile",
      ground,
    );
    if (made.kind !== 'sandboxed') throw new Error(made.reason);
    expect(groundMounts(ground).readOnly).toContain(own);
    await run(made.command, project, env);
    expect(readFileSync(own, 'utf8')).toBe(`:${text.slice(1)}`);
  });
});
